/** The chat's slash commands: what each one is called, takes and does (shown by /help). */
export const SLASH_COMMANDS = [
  { name: "help", args: "", help: "show these commands and keys" },
  { name: "sessions", args: "", help: "list the newest sessions" },
  { name: "resume", args: "<id>", help: "continue another session" },
  { name: "clear", args: "", help: "start a new session (same model and workspace)" },
  { name: "model", args: "[ref]", help: "show the model, or start a new session with another one" },
  {
    name: "approve",
    args: "[mode]",
    help: "show or set the approval mode: allow-all, deny-all, read-only, always-ask, plan",
  },
  {
    name: "plan",
    args: "[approve [mode]]",
    help: "switch plan mode on or off (reading tools only; the answer is a plan), or run the proposed plan",
  },
  { name: "compact", args: "", help: "compact the context now (summarize or discard, as configured)" },
  { name: "trace", args: "", help: "show where this session's trace is" },
  {
    name: "notify",
    args: "<type> <summary>",
    help: "hand a notice to the session's event handlers (.agents/events/); the model reads it as data",
  },
  { name: "exit", args: "", help: "end the chat (also /quit, Ctrl-D)" },
] as const;

export type SlashName = (typeof SLASH_COMMANDS)[number]["name"];

export const CHAT_KEYS = [
  "typing while a task runs steers it (delivered with the next model request)",
  "Ctrl-C interrupts the task (an open approval question is denied); a second Ctrl-C exits",
  "Ctrl-O shows the last folded tool output whole",
];

/** A typed line as a slash command, or undefined when it is a prompt. */
export function parseSlash(line: string): { name: SlashName | "quit" | string; arg: string } | undefined {
  const text = line.trim();
  if (!text.startsWith("/") || text.startsWith("//")) return undefined;
  const [head, ...rest] = text.slice(1).split(/\s+/);
  return { name: head.toLowerCase(), arg: rest.join(" ").trim() };
}

export function helpLines(): string[] {
  const width = Math.max(...SLASH_COMMANDS.map((c) => `/${c.name} ${c.args}`.length));
  return [
    ...SLASH_COMMANDS.map((c) => `  ${`/${c.name} ${c.args}`.padEnd(width)}  ${c.help}`),
    ...CHAT_KEYS.map((k) => `  ${k}`),
  ];
}

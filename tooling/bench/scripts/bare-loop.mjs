#!/usr/bin/env node
// The floor the end_to_end benchmark compares Penguin with: the least an agent loop must do.
// Chat Completions over fetch (no streaming, no SDK), one `bash -c` per tool call, no approval,
// no trace, no retries. Usage: node bare-loop.mjs <base-url> <model> <prompt>; key in OPENAI_API_KEY.
import { execFile } from "node:child_process";

const [baseUrl, model, prompt] = process.argv.slice(2);
const tools = [
  {
    type: "function",
    function: {
      name: "exec_command",
      description: "Run a shell command and return its output.",
      parameters: {
        type: "object",
        properties: { cmd: { type: "string" }, description: { type: "string" } },
        required: ["cmd"],
      },
    },
  },
];
const messages = [
  { role: "system", content: "You run shell commands with exec_command." },
  { role: "user", content: prompt },
];

/** Runs one command; its output and exit code, as a tool message carries them. */
function runCommand(cmd) {
  return new Promise((resolve) => {
    execFile("bash", ["-c", cmd], (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve(`${stdout}${stderr}[exit code: ${code}]`);
    });
  });
}

for (;;) {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
    body: JSON.stringify({ model, messages, tools, stream: false }),
  });
  if (!response.ok) throw new Error(`model request failed: ${response.status} ${await response.text()}`);
  const message = (await response.json()).choices[0].message;
  messages.push(message);
  const calls = message.tool_calls ?? [];
  if (calls.length === 0) {
    process.stdout.write(`${message.content ?? ""}\n`);
    break;
  }
  for (const call of calls) {
    const { cmd } = JSON.parse(call.function.arguments);
    messages.push({ role: "tool", tool_call_id: call.id, content: await runCommand(cmd) });
  }
}

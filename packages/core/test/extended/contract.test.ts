import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { EXTENDED_TOOL_NAMES } from "@penguin/state";
import { ExecutionProfileSchema } from "@penguin/state/schemas";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { Environment, EnvironmentOptions } from "../../src/environment/environment.js";
import { truncationMarker } from "../../src/environment/markers.js";
import { createAgent } from "../../src/sdk/agent.js";
import { SkillCatalog } from "../../src/skills/catalog.js";
import { PROFILES, profileEnvironment } from "../support/execution-profiles.js";
import { textPdf, tinyPng } from "./binary-fixtures.js";
import { extendedEnvironment, runCall, type TempDirs, type ToolsetOptions, workspace } from "./support.js";

// The execution contract, table-driven, for every extended tool and the core tools that need no
// session or image: each call is framed and closed once, long output is truncated with an
// archive note, malformed and invalid arguments and unknown tools come back as readable failures,
// and through the SDK every call gets exactly one approval_decision.

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`fetched body ${"w".repeat(200)}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

let dirs: TempDirs;
let ws: string;
beforeEach(async () => {
  dirs = await workspace();
  ws = dirs.workspaceDir;
  await writeFile(join(ws, "a.txt"), `${"needle line with some length\n".repeat(20)}`);
  await mkdir(join(ws, "sub"));
});
afterEach(async () => {
  await dirs.cleanup();
});

interface Case {
  name: string;
  /** The title, when one tool has several cases (e.g. read_file's rich reads). */
  label?: string;
  /** Settings of the toolset beyond the extended preset's defaults (e.g. `readFileRich`). */
  toolset?: Pick<ToolsetOptions, "readFileRich">;
  /** Arguments of a call that completes and writes more than the tiny cap. */
  args: () => Record<string, unknown>;
  /** Arguments the tool's schema rejects, and the argument the message must name. */
  invalid: Record<string, unknown>;
  names: string;
  /** Calls made first, in the same Environment (e.g. a job for the job tools to work on). */
  setup?: (env: Environment) => Promise<void>;
  /** The tool reaches the network itself: in the sandbox it runs under a profile that allows it. */
  network?: boolean;
  /** What the Environment needs beyond the tools (e.g. the skills use_skill loads from). */
  environment?: () => Partial<EnvironmentOptions>;
}

/** A catalog with one skill, `demo`, whose SKILL.md is written into the workspace. */
function demoSkills(): Partial<EnvironmentOptions> {
  const dir = join(ws, ".agents", "skills", "demo");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "SKILL.md");
  writeFileSync(
    file,
    `---\nname: demo\ndescription: A demo skill.\n---\n${"Step one of the demo.\n".repeat(5)}`,
  );
  const skills = new SkillCatalog();
  skills.add([{ name: "demo", description: "A demo skill.", file, dir, source: "workspace" }]);
  return { skills };
}

/** Starts job cmd_1 with run_command, for the job tools' cases; waits `timeout_ms` for it. */
const startJob =
  (command: string, timeout_ms = 0) =>
  async (env: Environment): Promise<void> => {
    await runCall(env, "run_command", { purpose: "a job for the test", command, timeout_ms }, "setup_job");
  };

const CASES: Case[] = [
  {
    name: "list_files",
    args: () => ({ recursive: true }),
    invalid: { recursive: "yes" },
    names: 'argument "recursive"',
  },
  {
    name: "search_text",
    args: () => ({ pattern: "needle" }),
    invalid: { pattern: 7 },
    names: 'argument "pattern"',
  },
  {
    name: "apply_patch",
    args: () => ({ patch: "*** Begin Patch\n*** Add File: sub/new.txt\n+hello\n*** End Patch" }),
    invalid: { patch: ["x"] },
    names: 'argument "patch"',
  },
  {
    name: "move_path",
    args: () => ({ source: "a.txt", destination: "sub/moved.txt" }),
    invalid: { source: "a.txt" },
    names: "destination",
  },
  {
    name: "make_directory",
    args: () => ({ path: "one/two" }),
    invalid: { path: "x", mode: 7 },
    names: "mode",
  },
  { name: "remove_path", args: () => ({ path: "a.txt" }), invalid: { recursive: true }, names: "path" },
  {
    name: "web_fetch",
    args: () => ({ url: `${base}/x` }),
    invalid: { url: 42 },
    names: 'argument "url"',
    network: true,
  },
  {
    name: "read_file",
    args: () => ({ file_path: "a.txt" }),
    invalid: { file_path: "a.txt", limit: 0 },
    names: 'argument "limit"',
  },
  {
    name: "read_file",
    label: "read_file (rich, a PDF)",
    toolset: { readFileRich: true },
    args: () => ({ file_path: "doc.pdf" }),
    invalid: { file_path: "doc.pdf", offset: 0 },
    names: 'argument "offset"',
    setup: async () => {
      await writeFile(join(ws, "doc.pdf"), textPdf([["First page text"], ["Second page text"]]));
    },
  },
  {
    name: "read_file",
    label: "read_file (rich, an image for a vision model)",
    toolset: { readFileRich: true },
    args: () => ({ file_path: "pic.png" }),
    invalid: { file_path: 7 },
    names: 'argument "file_path"',
    setup: async () => {
      await writeFile(join(ws, "pic.png"), tinyPng(2, 2));
    },
    environment: () => ({ modelHasVision: true }),
  },
  {
    name: "write_file",
    args: () => ({ file_path: "w.txt", content: "x\n".repeat(50) }),
    invalid: { file_path: "w.txt" },
    names: "content",
  },
  {
    name: "edit_file",
    args: () => ({ file_path: "a.txt", old_string: "needle", new_string: "pin", replace_all: true }),
    invalid: { file_path: "a.txt", old_string: "x", new_string: 1 },
    names: 'argument "new_string"',
  },
  {
    name: "exec_command",
    args: () => ({ description: "print", cmd: "seq 1 100" }),
    invalid: { description: "print" },
    names: "cmd",
  },
  {
    name: "run_command",
    args: () => ({ purpose: "print", command: "seq 1 100" }),
    invalid: { purpose: "print" },
    names: "command",
  },
  {
    name: "list_jobs",
    args: () => ({}),
    invalid: { state: 7 },
    names: 'argument "state"',
    setup: startJob("seq 1 100", 10_000),
  },
  {
    name: "read_job_output",
    args: () => ({ job_id: "cmd_1", offset: 1 }),
    invalid: { job_id: "cmd_1", limit: 0 },
    names: 'argument "limit"',
    setup: startJob("seq 1 100", 10_000),
  },
  {
    name: "wait_job",
    args: () => ({ job_id: "cmd_1", timeout_ms: 10_000 }),
    invalid: { job_id: 1 },
    names: 'argument "job_id"',
    setup: startJob("sleep 0.2; seq 1 100"),
  },
  {
    name: "signal_job",
    args: () => ({ job_id: "cmd_1", signal: "stop" }),
    invalid: { job_id: "cmd_1", signal: "hup" },
    names: "signal",
    setup: startJob("sleep 60"),
  },
  {
    name: "use_skill",
    args: () => ({ name: "demo" }),
    invalid: { name: 5 },
    names: 'argument "name"',
    environment: demoSkills,
  },
  {
    name: "change_directory",
    args: () => ({ path: "sub" }),
    invalid: { path: 7 },
    names: 'argument "path"',
  },
  {
    name: "send_message",
    args: () => ({ to: "sub_1", text: "Please report your progress." }),
    invalid: { to: "sub_1" },
    names: "text",
  },
  {
    name: "wait_messages",
    args: () => ({ timeout_ms: 0 }),
    invalid: { timeout_ms: "soon" },
    names: 'argument "timeout_ms"',
  },
  {
    name: "read_metrics",
    args: () => ({ summary: "tools" }),
    invalid: { summary: "everything" },
    names: "summary",
  },
  {
    // The journal of `extendedEnvironment` holds one uncertain call (see oneUncertainWrite).
    name: "resolve_execution_activity",
    args: () => ({
      tool_call_id: "call_crashed",
      decision: "retry",
      evidence: "uncertain.txt does not exist, so the write never happened.",
    }),
    invalid: { tool_call_id: "call_crashed", decision: "maybe", evidence: "looked" },
    names: "decision",
  },
  {
    // The root's mailbox of `extendedEnvironment` has a user answerer (see rootWithOneChild).
    name: "ask",
    args: () => ({ question: "Which of the two files should I keep?" }),
    invalid: { question: 42 },
    names: 'argument "question"',
  },
  {
    name: "launch_agent",
    args: () => ({ task: "Report back.", agent_definition: { instructions: "You are a helper." } }),
    invalid: { agent: "helper" },
    names: "task",
  },
  {
    name: "search_executions",
    args: () => ({ state: "interrupted" }),
    invalid: { limit: "many" },
    names: "limit",
  },
  {
    name: "read_execution",
    args: () => ({ execution_id: "root/1", part: "activities" }),
    invalid: { execution_id: 7 },
    names: "execution_id",
  },
  {
    // retainedWork's child sub_1 was stopped: resuming relaunches it.
    name: "resume_execution",
    args: () => ({ execution_id: "sub_1/1" }),
    invalid: { execution_id: 7 },
    names: "execution_id",
  },
  {
    name: "stop_agent",
    args: () => ({ agent_run_id: "sub_1" }),
    invalid: { agent_run_id: 7 },
    names: 'argument "agent_run_id"',
    // A child to stop: it has already answered, so the call reports that nothing was running.
    setup: async (env) => {
      const launched = await runCall(env, "launch_agent", {
        task: "Answer.",
        agent_definition: { instructions: "Hi." },
      });
      expect(launched.complete.stop_reason).toBe("completed");
    },
  },
];

const TINY_CAP = 30;

// "The full tool contract table suite passes in `sandbox` as in `native`."
describe.each(PROFILES)("in the %s execution profile", (profile) => {
  describe.each(CASES.map((c) => ({ ...c, label: c.label ?? c.name })))(
    "$label under the execution contract",
    ({ name, args, invalid, names, setup, environment, toolset, network }) => {
      const sandbox = ExecutionProfileSchema.parse({ kind: "sandbox", network: network === true });
      const where = () => ({ ...profileEnvironment(profile, dirs, sandbox), ...environment?.() });
      it("is framed start, deltas, stop and one complete output, and completes", async () => {
        const env = extendedEnvironment(dirs, { ...toolset, environment: where() });
        await setup?.(env);
        const call = await runCall(env, name, args());
        expect(call.complete.stop_reason).toBe("completed");
        expect(call.complete.output.length).toBeGreaterThan(0);
        expect(call.streamed).toBe(call.complete.output);
        await env.dispose();
      });

      it("is truncated past maxOutputLength, with the full text archived and its path noted", async () => {
        const env = extendedEnvironment(dirs, {
          ...toolset,
          edit: (d) => ({ ...d, maxOutputLength: TINY_CAP }),
          environment: where(),
        });
        await setup?.(env);
        const call = await runCall(env, name, args(), `call_${name}`);
        const lines = call.complete.output.split("\n");
        expect(lines).toContain(truncationMarker(TINY_CAP));
        const note = lines[lines.length - 1]!;
        const path = /at: (\/[^\]]+)\]$/.exec(note)?.[1];
        expect(path, note).toBeDefined();
        expect(path!.startsWith(join(dirs.scratchpadDir, "truncated-tool-output"))).toBe(true);
        const archived = await readFile(path!, "utf8");
        expect(archived.length).toBeGreaterThan(TINY_CAP);
        expect(archived.startsWith(call.complete.output.slice(0, TINY_CAP))).toBe(true);
        expect(call.streamed).toBe(call.complete.output);
        await env.dispose();
      });

      it("answers malformed JSON arguments with a failed output the model can act on", async () => {
        const env = extendedEnvironment(dirs, { ...toolset, environment: where() });
        const call = await runCall(env, name, '{"path": "a.txt", ');
        expect(call.complete.stop_reason).toBe("failed");
        expect(call.complete.output).toMatch(
          new RegExp(`^Invalid arguments for ${name}: the arguments are not valid JSON`),
        );
      });

      it("answers arguments that break its schema with a failed output naming the argument", async () => {
        const env = extendedEnvironment(dirs, { ...toolset, environment: where() });
        const call = await runCall(env, name, invalid);
        expect(call.complete.stop_reason).toBe("failed");
        expect(call.complete.output).toContain(`Invalid arguments for ${name}:`);
        expect(call.complete.output).toContain(names);
        // Nothing ran: the workspace is as it was.
        expect(await readFile(join(ws, "a.txt"), "utf8")).toContain("needle");
        expect(existsSync(join(ws, "one"))).toBe(false);
      });
    },
  );
});

describe.each(PROFILES)("a session with the extended preset (SDK, replay model, %s profile)", (profile) => {
  // Calls of one turn run concurrently, so the ones that rely on the listing come a turn later.
  const firstTurn = () => [
    { id: "c_list", name: "list_files", arguments: { path: "." } },
    { id: "c_search", name: "search_text", arguments: { pattern: "needle", path: "a.txt" } },
    { id: "c_read", name: "read_file", arguments: { file_path: "a.txt", limit: 1 } },
    { id: "c_mkdir", name: "make_directory", arguments: { path: "made" } },
    { id: "c_fetch", name: "web_fetch", arguments: { url: `${base}/page` } },
    {
      id: "c_patch",
      name: "apply_patch",
      arguments: { patch: "*** Begin Patch\n*** Add File: made/p.txt\n+patched\n*** End Patch" },
    },
    {
      id: "c_run",
      name: "run_command",
      arguments: { purpose: "start a job", command: "echo hi; sleep 60", timeout_ms: 0 },
    },
  ];
  const secondTurn = () => [
    { id: "c_move", name: "move_path", arguments: { source: "sub", destination: "moved-sub" } },
    { id: "c_remove", name: "remove_path", arguments: { path: "moved-sub" } },
    { id: "c_jobs", name: "list_jobs", arguments: {} },
    { id: "c_read_job", name: "read_job_output", arguments: { job_id: "cmd_1" } },
    { id: "c_wait", name: "wait_job", arguments: { job_id: "cmd_1", pattern: "hi", timeout_ms: 5_000 } },
  ];
  const thirdTurn = () => [
    { id: "c_signal", name: "signal_job", arguments: { job_id: "cmd_1", signal: "kill" } },
    { id: "c_skill", name: "use_skill", arguments: { name: "demo" } },
    { id: "c_wait_messages", name: "wait_messages", arguments: { timeout_ms: 0 } },
    { id: "c_ask", name: "ask", arguments: { question: "Keep going?" } },
  ];
  // change_directory must be alone in its round.
  const fourthTurn = () => [{ id: "c_cd", name: "change_directory", arguments: { path: "made" } }];

  async function session(turns: unknown[]) {
    const cassette = join(dirs.root, "cassette.yaml");
    await writeFile(cassette, stringify({ turns }));
    demoSkills();
    const agent = await createAgent({
      dataRoot: join(dirs.root, "data"),
      config: { tools: { preset: "extended" } },
      logger: { warn: () => {} },
    });
    return agent.createSession({ workspaceDir: ws, model: `replay:${cassette}`, executionProfile: profile });
  }

  async function collect(run: AsyncIterable<OmniMessage>): Promise<OmniMessage[]> {
    const out: OmniMessage[] = [];
    for await (const message of run) out.push(message);
    return out;
  }
  const payloads = (messages: OmniMessage[], type: string) =>
    messages
      .map(
        (m) =>
          m.payload as {
            type: string;
            tool_call_id?: string;
            decision?: string;
            output?: string;
            stop_reason?: string;
          },
      )
      .filter((p) => p.type === type);

  it("offers every extended tool and audits exactly one approval_decision per call, denials included", async () => {
    const s = await session([
      { tool_calls: firstTurn() },
      { tool_calls: secondTurn() },
      { tool_calls: thirdTurn() },
      { tool_calls: fourthTurn() },
      { text: "done" },
    ]);
    expect(s.tools.map((t) => t.name)).toEqual(expect.arrayContaining([...EXTENDED_TOOL_NAMES]));
    const approve = async (call: OmniMessage) =>
      (call.payload as { name: string }).name === "remove_path" ? ("deny" as const) : ("allow" as const);
    const messages = await collect(
      s.run("Use the tools.", { approve, onAsk: async () => "yes, keep going" }),
    );
    await s.dispose();

    const ids = [...firstTurn(), ...secondTurn(), ...thirdTurn(), ...fourthTurn()].map((c) => c.id);
    const decisions = payloads(messages, "approval_decision");
    expect(decisions.map((d) => d.tool_call_id).sort()).toEqual([...ids].sort());
    expect(decisions.find((d) => d.tool_call_id === "c_remove")?.decision).toBe("deny");
    const outputs = payloads(messages, "tool_call_output");
    expect(outputs.map((o) => o.tool_call_id).sort()).toEqual([...ids].sort());
    const byId = Object.fromEntries(outputs.map((o) => [o.tool_call_id, o]));
    // A sandbox without network fetches nothing, web_fetch included.
    const refused = profile === "sandbox" ? ["c_remove", "c_fetch"] : ["c_remove"];
    for (const id of ids.filter((i) => !refused.includes(i)))
      expect(byId[id]?.stop_reason, `${id}: ${byId[id]?.output}`).toBe("completed");
    if (profile === "sandbox") {
      expect(byId.c_fetch?.stop_reason).toBe("failed");
      expect(byId.c_fetch?.output).toContain("sandbox without network access");
    }
    expect(byId.c_remove?.stop_reason).toBe("aborted");
    // The guard is on with the extended preset: the read reported the file's hash.
    expect(byId.c_read?.output).toMatch(/\[sha256: [0-9a-f]{64}\]$/);
    expect(await readFile(join(ws, "made", "p.txt"), "utf8")).toBe("patched\n");
    expect(existsSync(join(ws, "moved-sub"))).toBe(true);
    // The trace holds the same audit.
    const traced = (await readFile(s.tracePath, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as OmniMessage);
    expect(payloads(traced, "approval_decision")).toHaveLength(ids.length);
  });

  it("forgets reads between tasks: a write in the next task needs a new read", async () => {
    const hash = "0".repeat(64);
    const s = await session([
      { tool_calls: [{ id: "r1", name: "read_file", arguments: { file_path: "a.txt" } }] },
      { text: "read it" },
      {
        tool_calls: [
          {
            id: "w1",
            name: "write_file",
            arguments: { file_path: "a.txt", content: "x", expected_sha256: hash },
          },
        ],
      },
      { text: "tried" },
    ]);
    const allow = async () => "allow" as const;
    await collect(s.run("Read a.txt.", { approve: allow }));
    const second = await collect(s.run("Now overwrite it.", { approve: allow }));
    await s.dispose();
    const [output] = payloads(second, "tool_call_output");
    expect(output?.stop_reason).toBe("failed");
    expect(output?.output).toContain("has not been read in this task");
    expect(await readFile(join(ws, "a.txt"), "utf8")).toContain("needle");
  });
});

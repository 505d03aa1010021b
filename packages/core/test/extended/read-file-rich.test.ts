import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { truncate, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { OmniMessage } from "@penguin/protocol";
import { DEFAULT_TOOL_DEFINITIONS, READ_FILE_RICH_NOTE, type SystemConfigInput } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { IMAGE_MAX_BYTES } from "../../src/environment/limits.js";
import { createAgent } from "../../src/sdk/agent.js";
import { imageDimensions } from "../../src/tools/files/image-dimensions.js";
import { createBuiltinTools } from "../../src/tools/registry.js";
import { makeEnvironment } from "../environment/support.js";
import { imageOnlyPdf, passwordPdf, textPdf, tinyPng } from "./binary-fixtures.js";
import { extendedEnvironment, runCall, type TempDirs, type ToolsetOptions, workspace } from "./support.js";

// "In the extended preset `read_file` also returns an image as image content (vision models) and
// extracts the text of a PDF, where the core contract refuses binary content." Real files made
// from bytes in a temp workspace, read through the real Environment (and a real session).

let dirs: TempDirs;
let ws: string;
beforeEach(async () => {
  dirs = await workspace();
  ws = dirs.workspaceDir;
});
afterEach(async () => {
  await dirs.cleanup();
});

const PNG = tinyPng(3, 2);
const TWO_PAGES = textPdf([
  ["Quarterly report", "Revenue grew (a lot)", "Costs fell"],
  ["Page two begins here", "The end"],
]);

/** The rich read_file of the extended preset; the model sees images unless told otherwise. */
function richEnvironment(options: ToolsetOptions & { vision?: boolean } = {}) {
  const { vision = true, ...rest } = options;
  return extendedEnvironment(dirs, {
    readFileRich: true,
    ...rest,
    environment: { modelHasVision: vision, ...rest.environment },
  });
}

const read = (env: ReturnType<typeof richEnvironment>, args: Record<string, unknown>) =>
  runCall(env, "read_file", args);

/** The text of each `cat -n` line, without its number. */
const contents = (output: string) =>
  output
    .split("\n")
    .filter((line) => /^ *\d+\t/.test(line))
    .map((line) => line.replace(/^ *\d+\t/, ""));

describe("read_file (rich) with an image", () => {
  it("returns a PNG as image content with a line saying what it is", async () => {
    await writeFile(join(ws, "chart.png"), PNG);
    const call = await read(richEnvironment(), { file_path: "chart.png" });
    expect(call.complete.stop_reason).toBe("completed");
    expect(call.complete.output).toBe(
      `${join(ws, "chart.png")}: PNG image, ${PNG.length} bytes, 3x2 pixels.`,
    );
    expect(call.complete.images).toEqual([`data:image/png;base64,${PNG.toString("base64")}`]);
  });

  it("recognises the image by its bytes, not its name", async () => {
    await writeFile(join(ws, "notes.txt"), PNG);
    const call = await read(richEnvironment(), { file_path: "notes.txt" });
    expect(call.complete.stop_reason).toBe("completed");
    expect(call.complete.output).toContain("PNG image");
    expect(call.complete.images?.[0]).toMatch(/^data:image\/png;base64,/);
  });

  it("refuses an image over 5 MB, with its size and what to do, and sends no image", async () => {
    const big = join(ws, "huge.png");
    await writeFile(big, PNG);
    await truncate(big, IMAGE_MAX_BYTES + 1);
    const call = await read(richEnvironment(), { file_path: "huge.png" });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toContain("is a PNG image of 5.0 MB; images up to 5 MB");
    expect(call.complete.output).toContain("smaller copy");
    expect(call.complete.images ?? []).toEqual([]);
  });

  it("tells a text-only model to ask describe_image, and sends no image", async () => {
    await writeFile(join(ws, "chart.png"), PNG);
    const call = await read(richEnvironment({ vision: false }), { file_path: "chart.png" });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toContain("this model cannot see images");
    expect(call.complete.output).toContain(
      `describe_image about it instead, with source "${join(ws, "chart.png")}"`,
    );
    expect(call.complete.images ?? []).toEqual([]);
  });
});

describe("image dimensions from the header", () => {
  it("reads PNG, GIF, JPEG and the three WebP layouts, and gives up on a truncated header", () => {
    expect(imageDimensions(tinyPng(640, 480), "image/png")).toEqual({ width: 640, height: 480 });
    expect(imageDimensions(Buffer.from("GIF89a\x20\x03\x58\x02", "latin1"), "image/gif")).toEqual({
      width: 800,
      height: 600,
    });
    // SOI, an APP0 segment to skip, then SOF0: length, precision, height 0x0100, width 0x0200.
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x00, 0x02, 0x00,
    ]);
    expect(imageDimensions(jpeg, "image/jpeg")).toEqual({ width: 512, height: 256 });
    const riff = (chunk: string, body: number[]) =>
      Buffer.concat([Buffer.from("RIFF\0\0\0\0WEBP", "latin1"), Buffer.from(chunk), Buffer.from(body)]);
    // VP8X: flags and reserved bytes, then width-1 and height-1 in 24 bits each.
    const vp8x = riff("VP8X", [10, 0, 0, 0, 0, 0, 0, 0, 0xff, 0x01, 0x00, 0x2b, 0x01, 0x00]);
    expect(imageDimensions(vp8x, "image/webp")).toEqual({ width: 512, height: 300 });
    // VP8L: size, signature 0x2f, then 14 bits width-1 and 14 bits height-1.
    const bits = (100 - 1) | ((50 - 1) << 14);
    const vp8l = riff("VP8L", [
      0,
      0,
      0,
      0,
      0x2f,
      bits & 0xff,
      (bits >> 8) & 0xff,
      (bits >> 16) & 0xff,
      (bits >>> 24) & 0xff,
      0,
    ]);
    expect(imageDimensions(vp8l, "image/webp")).toEqual({ width: 100, height: 50 });
    // VP8: size, frame tag, start code 9d 01 2a, then 14-bit width and height.
    const vp8 = riff("VP8 ", [0, 0, 0, 0, 0, 0, 0, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xf0, 0x00]);
    expect(imageDimensions(vp8, "image/webp")).toEqual({ width: 320, height: 240 });
    expect(imageDimensions(tinyPng(4, 4).subarray(0, 20), "image/png")).toBeUndefined();
    expect(imageDimensions(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2]), "image/jpeg")).toBeUndefined();
  });
});

describe("read_file (rich) with a PDF", () => {
  it("returns the text of every page as cat -n lines, each page starting with its marker", async () => {
    await writeFile(join(ws, "report.pdf"), TWO_PAGES);
    const call = await read(richEnvironment(), { file_path: "report.pdf" });
    expect(call.complete.stop_reason).toBe("completed");
    expect(contents(call.complete.output)).toEqual([
      "--- page 1 of 2 ---",
      "Quarterly report",
      "Revenue grew (a lot)",
      "Costs fell",
      "--- page 2 of 2 ---",
      "Page two begins here",
      "The end",
    ]);
    expect(call.complete.output.split("\n")[0]).toBe("     1\t--- page 1 of 2 ---");
    expect(call.complete.images ?? []).toEqual([]);
  });

  it("pages through the extracted lines with offset and limit, with the continuation note", async () => {
    await writeFile(join(ws, "report.pdf"), TWO_PAGES);
    const env = richEnvironment();
    const first = await read(env, { file_path: "report.pdf", offset: 2, limit: 3 });
    expect(first.complete.output).toBe(
      [
        "     2\tQuarterly report",
        "     3\tRevenue grew (a lot)",
        "     4\tCosts fell",
        "[lines 2-4 of 7; continue with offset=5]",
      ].join("\n"),
    );
    const rest = await read(env, { file_path: "report.pdf", offset: 5 });
    expect(rest.complete.output).toBe(
      "     5\t--- page 2 of 2 ---\n     6\tPage two begins here\n     7\tThe end",
    );
    const past = await read(env, { file_path: "report.pdf", offset: 8 });
    expect(past.complete.stop_reason).toBe("failed");
    expect(past.complete.output).toContain("offset 8 is past the end");
  });

  it("reads a PDF again when it changes between calls", async () => {
    const file = join(ws, "report.pdf");
    await writeFile(file, TWO_PAGES);
    const env = richEnvironment();
    await read(env, { file_path: "report.pdf" });
    await writeFile(file, textPdf([["Rewritten"]]));
    // Same size or not, a new modification time means new content.
    await utimes(file, new Date(), new Date(Date.now() + 5_000));
    const call = await read(env, { file_path: "report.pdf" });
    expect(contents(call.complete.output)).toEqual(["--- page 1 of 1 ---", "Rewritten"]);
  });

  it("marks pages without text, and names the pages past the page cap", async () => {
    await writeFile(join(ws, "mixed.pdf"), textPdf([["First"], [], ["Third"]]));
    const env = richEnvironment({ limits: { read_file: { pdfMaxPages: 2 } } });
    const call = await read(env, { file_path: "mixed.pdf" });
    expect(call.complete.stop_reason).toBe("completed");
    expect(contents(call.complete.output)).toEqual([
      "--- page 1 of 3 ---",
      "First",
      "--- page 2 of 3 ---",
      "(no text on this page)",
      "--- pages 3-3 not read: at most 2 pages of a PDF are read (tools.limits.read_file.pdfMaxPages) ---",
    ]);
  });

  it("refuses a PDF over the size cap with the key that sets it", async () => {
    await writeFile(join(ws, "report.pdf"), TWO_PAGES);
    const env = richEnvironment({ limits: { read_file: { pdfMaxBytes: 100 } } });
    const call = await read(env, { file_path: "report.pdf" });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toContain("tools.limits.read_file.pdfMaxBytes");
    expect(call.complete.output).toContain("pdftotext");
  });

  it("says a PDF without a text layer has no text, and how to look at its pages", async () => {
    await writeFile(join(ws, "scan.pdf"), imageOnlyPdf(2));
    const call = await read(richEnvironment(), { file_path: "scan.pdf" });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toContain("is a PDF without a text layer: its 2 page(s) hold no text");
    expect(call.complete.output).toContain("pdftoppm");
  });

  it("says an encrypted PDF needs a password", async () => {
    await writeFile(join(ws, "locked.pdf"), passwordPdf());
    const call = await read(richEnvironment(), { file_path: "locked.pdf" });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toContain("is an encrypted PDF that needs a password");
    expect(call.complete.output).not.toContain("secret text");
  });

  it("answers a damaged PDF with a failed result, and keeps working after it", async () => {
    await writeFile(join(ws, "broken.pdf"), "%PDF-1.7\nthis is not a PDF body at all\n");
    // A real PDF cut in half: the header and some objects, no cross-reference table or trailer.
    await writeFile(join(ws, "cut.pdf"), TWO_PAGES.subarray(0, 60));
    const env = richEnvironment();
    for (const name of ["broken.pdf", "cut.pdf"]) {
      const call = await read(env, { file_path: name });
      expect(call.complete.stop_reason, call.complete.output).toBe("failed");
      expect(call.complete.output).toContain("starts like a PDF but could not be read as one");
    }
    await writeFile(join(ws, "report.pdf"), TWO_PAGES);
    const after = await read(env, { file_path: "report.pdf" });
    expect(after.complete.stop_reason).toBe("completed");
  });
});

describe("read_file (rich) with other content", () => {
  it("still refuses other binary content, with advice", async () => {
    await writeFile(join(ws, "blob.bin"), Buffer.from([0x42, 0x4d, 0x00, 0x01, 0x02, 0x00, 0xff]));
    const call = await read(richEnvironment(), { file_path: "blob.bin" });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toContain("looks like a binary file (it contains NUL bytes)");
    expect(call.complete.output).toContain("not a PDF or a png, jpeg, gif or webp image");
    expect(call.complete.output).toContain("exec_command");
  });

  it("reads text exactly as the core read_file does", async () => {
    await writeFile(join(ws, "a.txt"), "one\ntwo\nthree\n");
    const call = await read(richEnvironment(), { file_path: "a.txt", offset: 2, limit: 1 });
    expect(call.complete.output).toBe("     2\ttwo\n[lines 2-2 of 3; continue with offset=3]");
  });

  it("ends image and PDF reads with the file's sha256 under the write guard", async () => {
    await writeFile(join(ws, "chart.png"), PNG);
    await writeFile(join(ws, "report.pdf"), TWO_PAGES);
    const env = richEnvironment({ writeGuard: true });
    const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");
    const image = await read(env, { file_path: "chart.png" });
    expect(image.complete.output).toMatch(new RegExp(`\\[sha256: ${sha(PNG)}\\]$`));
    expect(image.complete.images).toHaveLength(1);
    const pdf = await read(env, { file_path: "report.pdf", limit: 2 });
    expect(pdf.complete.output).toMatch(new RegExp(`\\[sha256: ${sha(TWO_PAGES)}\\]$`));
    // The read counts: the PDF may now be replaced with the hash it reported.
    const write = await runCall(env, "write_file", {
      file_path: "report.pdf",
      content: "replaced",
      expected_sha256: sha(TWO_PAGES),
    });
    expect(write.complete.stop_reason, write.complete.output).toBe("completed");
  });
});

describe("the core read_file (rich reads off)", () => {
  function coreEnvironment() {
    const definitions = DEFAULT_TOOL_DEFINITIONS.filter((d) => d.name === "read_file");
    const { tools } = createBuiltinTools(definitions);
    return makeEnvironment(dirs, tools, { modelHasVision: true });
  }

  it("refuses an image as binary, even for a vision model", async () => {
    await writeFile(join(ws, "chart.png"), PNG);
    const call = await runCall(coreEnvironment(), "read_file", { file_path: "chart.png" });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toBe(
      `${join(ws, "chart.png")} looks like a binary file (it contains NUL bytes), and read_file shows text only. Inspect it with exec_command (e.g. file, xxd | head, strings), or use the image tool if it is an image.`,
    );
    expect(call.complete.images ?? []).toEqual([]);
  });

  it("reads a PDF's bytes as text lines (no extraction), as the core contract says", async () => {
    await writeFile(join(ws, "report.pdf"), TWO_PAGES);
    const call = await runCall(coreEnvironment(), "read_file", { file_path: "report.pdf", limit: 1 });
    expect(call.complete.output.split("\n")[0]).toBe("     1\t%PDF-1.4");
    expect(call.complete.output).not.toContain("--- page");
  });

  it("is what the extended preset's own factory gives without readFileRich", async () => {
    await writeFile(join(ws, "chart.png"), PNG);
    const env = extendedEnvironment(dirs, { environment: { modelHasVision: true } });
    const call = await runCall(env, "read_file", { file_path: "chart.png" });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toContain("read_file shows text only");
  });
});

describe("a session's read_file follows tools.readFileRich (SDK, replay model)", () => {
  async function outputs(tools: SystemConfigInput["tools"]) {
    await writeFile(join(ws, "chart.png"), PNG);
    await writeFile(join(ws, "report.pdf"), TWO_PAGES);
    const cassette = join(dirs.root, "cassette.yaml");
    const turns = [
      {
        tool_calls: [
          { id: "r_png", name: "read_file", arguments: { file_path: "chart.png" } },
          { id: "r_pdf", name: "read_file", arguments: { file_path: "report.pdf", limit: 2 } },
        ],
      },
      { text: "done" },
    ];
    await writeFile(cassette, stringify({ turns }));
    const agent = await createAgent({
      dataRoot: join(dirs.root, "data"),
      config: { tools },
      logger: { warn: () => {} },
    });
    const session = await agent.createSession({ workspaceDir: ws, model: `replay:${cassette}` });
    const description = session.tools.find((t) => t.name === "read_file")?.description ?? "";
    const messages: OmniMessage[] = [];
    for await (const message of session.run("Read them.", { approve: async () => "allow" as const })) {
      messages.push(message);
    }
    await session.dispose();
    const byId: Record<string, { output: string; stop_reason: string }> = {};
    for (const message of messages) {
      const payload = message.payload as {
        type: string;
        tool_call_id: string;
        output: string;
        stop_reason: string;
      };
      if (payload.type === "tool_call_output") byId[payload.tool_call_id] = payload;
    }
    return { description, byId };
  }

  it("is on with the extended preset: the PDF's text, and describe_image for the text-only model", async () => {
    const { description, byId } = await outputs({ preset: "extended" });
    expect(description).toContain(READ_FILE_RICH_NOTE.trim());
    expect(byId.r_pdf?.stop_reason).toBe("completed");
    expect(byId.r_pdf?.output).toContain(
      "     1\t--- page 1 of 2 ---\n     2\tQuarterly report\n[lines 1-2 of 7",
    );
    expect(byId.r_png?.output).toContain("describe_image");
  });

  it("is off when the extended preset says readFileRich: false", async () => {
    const { description, byId } = await outputs({ preset: "extended", readFileRich: false });
    expect(description).not.toContain(READ_FILE_RICH_NOTE.trim());
    expect(byId.r_png?.output).toContain("read_file shows text only");
    expect(byId.r_pdf?.output).toContain("%PDF-1.4");
  });
});

describe("loading the PDF library", () => {
  /**
   * A fresh process that imports the built package, makes a rich read_file and reads a PDF,
   * noting whether PDF.js (which sets globalThis.pdfjsLib) is loaded at each step.
   */
  async function readInFreshProcess(nodeArgs: string[] = []) {
    const dist = pathToFileURL(join(import.meta.dirname, "../../dist/index.js")).href;
    const pdf = join(ws, "report.pdf");
    await writeFile(pdf, TWO_PAGES);
    const script = `
      const core = await import(${JSON.stringify(dist)});
      const loadedAtImport = "pdfjsLib" in globalThis;
      const definition = { name: "read_file", description: "", parameters: { type: "object" }, permission: "r", timeoutMs: 30000, maxOutputLength: 16000 };
      const tool = core.createReadFileTool(definition, { rich: { pdfMaxBytes: 1e7, pdfMaxPages: 10 } });
      const loadedByTool = "pdfjsLib" in globalThis;
      let text = "";
      const ctx = { workspaceDir: ${JSON.stringify(ws)}, toolCallId: "c1", sessionId: "s", scratchpadDir: ${JSON.stringify(ws)}, modelHasVision: false };
      for await (const message of tool.execute({ file_path: ${JSON.stringify(pdf)} }, ctx)) text += message.payload.output ?? "";
      console.log(JSON.stringify({ loadedAtImport, loadedByTool, loadedAfterRead: "pdfjsLib" in globalThis, text }));
    `;
    return promisify(execFile)(process.execPath, [...nodeArgs, "--input-type=module", "-e", script]);
  }

  it("happens on the first PDF read, not when the package is imported", async () => {
    const { stdout } = await readInFreshProcess();
    const result = JSON.parse(stdout.trim().split("\n").pop() ?? "{}");
    expect(result).toMatchObject({ loadedAtImport: false, loadedByTool: false, loadedAfterRead: true });
    expect(result.text).toContain("--- page 2 of 2 ---");
  });

  it("works without the optional canvas package, and prints nothing of its own on stdout", async () => {
    // Make @napi-rs/canvas impossible to load, as after an install with --omit=optional.
    const hide = join(dirs.root, "hide-canvas.cjs");
    await writeFile(
      hide,
      `const Module = require("node:module");
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        if (request.startsWith("@napi-rs/canvas")) throw Object.assign(new Error("hidden by the test"), { code: "MODULE_NOT_FOUND" });
        return resolve.call(this, request, ...rest);
      };`,
    );
    const { stdout } = await readInFreshProcess(["--require", hide]);
    // Only the script's own line: PDF.js's warnings about the missing canvas are dropped.
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0] ?? "{}");
    expect(result.loadedAfterRead).toBe(true);
    expect(result.text).toContain("     2\tQuarterly report");
  });
});

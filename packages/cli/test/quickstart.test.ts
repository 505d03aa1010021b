import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { kindOf, penguin, REPO_ROOT, readJsonLines, tempDir, traceFiles } from "./helpers.js";

describe("the offline quickstart (replay cassette, real tools)", () => {
  test("writes a program, sees it fail, fixes it and runs it", async () => {
    const dataRoot = tempDir("data");
    const workspace = tempDir("ws");
    const cassette = join(REPO_ROOT, "examples/quickstart.cassette.yaml");
    const r = await penguin(
      ["run", "--model", `replay:${cassette}`, "-w", workspace, "-m", "fibonacci please"],
      {
        env: { PENGUIN_HOME: dataRoot },
      },
    );
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Done. `fib.js` prints");

    const records = readJsonLines(traceFiles(dataRoot)[0]);
    const outputs = records
      .filter((x) => kindOf(x) === "tool_call_output")
      .map((x) => String(x.payload.output));
    expect(outputs).toHaveLength(5);
    expect(outputs[2]).toMatch(/ReferenceError: sum is not defined/);
    expect(outputs[3]).toMatch(/Replaced 1 occurrence/);
    expect(outputs[4]).toContain("0, 1, 1, 2, 3, 5, 8, 13, 21, 34");
    expect(outputs[4]).toContain("sum: 88");
  });
});

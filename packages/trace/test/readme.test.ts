import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

it("the README example runs against the built package and prints what its comments say", () => {
  const readme = readFileSync(`${PACKAGE_DIR}README.md`, "utf8");
  const code = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code, "README.md has a js example").toBeTruthy();
  // Inside the package folder, `@penguin/trace` resolves to the package itself (self-reference).
  const dir = `${PACKAGE_DIR}.vitest`;
  mkdirSync(dir, { recursive: true });
  const file = `${dir}/readme-example.mjs`;
  writeFileSync(file, code as string);
  try {
    const out = execFileSync(process.execPath, [file], { encoding: "utf8" });
    expect(out.trim().split("\n")).toEqual([
      "[ 'text', 'text', 'tool_call', 'tool_call_output' ]",
      "tools [ 'call_1' ]",
      "exec_command 0",
    ]);
  } finally {
    rmSync(file, { force: true });
  }
});

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

it("the README example runs against the built package and prints what the README says", () => {
  const readme = readFileSync(`${PACKAGE_DIR}README.md`, "utf8");
  const code = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
  const expected = /prints\n\n```\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code, "README.md has a js example").toBeTruthy();
  expect(expected, "README.md shows the example's output").toBeTruthy();
  // Inside the package folder, `@penguin/server` resolves to the package itself (self-reference).
  const dir = `${PACKAGE_DIR}.vitest`;
  mkdirSync(dir, { recursive: true });
  const file = `${dir}/readme-example.mjs`;
  writeFileSync(file, code as string);
  try {
    const out = execFileSync(process.execPath, [file], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(out).toBe(expected);
  } finally {
    rmSync(file, { force: true });
  }
});

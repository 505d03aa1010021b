import { expect, test } from "vitest";
import { PACKAGE_NAME } from "../src/index.js";

test("package name", () => {
  expect(PACKAGE_NAME).toMatch(/^@penguin\//);
});

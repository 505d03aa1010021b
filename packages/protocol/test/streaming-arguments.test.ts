import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CALL_DESCRIPTION_KEYS, readStreamingArgument } from "../src/index.js";

const read = (json: string) => readStreamingArgument(json, CALL_DESCRIPTION_KEYS);

describe("readStreamingArgument: a string argument while the arguments stream in", () => {
  it("grows with every fragment and is complete once its closing quote arrives", () => {
    const full = JSON.stringify({ description: 'List the "src" folder\nquickly', cmd: "ls src" });
    expect(read('{"descr')).toBeUndefined();
    expect(read('{"description":')).toBeUndefined();
    expect(read('{"description": "')).toEqual({ value: "", complete: false });
    expect(read('{"description":"List the \\"s')).toEqual({ value: 'List the "s', complete: false });
    expect(read(full)).toEqual({ value: 'List the "src" folder\nquickly', complete: true });
  });

  it("reads run_command's purpose too, and skips the word inside other values", () => {
    expect(read('{"command":"npm run dev","purpose":"Start it"}')).toEqual({
      value: "Start it",
      complete: true,
    });
    expect(read('{"cmd":"echo description","o":{"description":"nested"},"description":"top')?.value).toBe(
      "top",
    );
    expect(read('{"n": [1, {"description": "x"}], "description": "ok"}')?.value).toBe("ok");
    expect(read('{"cmd":"echo hi"}')).toBeUndefined();
  });

  it("decodes escapes; a cut or invalid escape ends what is readable and is never complete", () => {
    expect(read('{"description":"tab\\there \\u00e9t\\u00E9"}')).toEqual({
      value: "tab\there été",
      complete: true,
    });
    expect(read('{"description":"half \\')).toEqual({ value: "half ", complete: false });
    expect(read('{"description":"half \\u00')).toEqual({ value: "half ", complete: false });
    expect(read('{"description": "bad \\q escape"}')?.complete).toBe(false);
  });

  it("reads nothing out of what is not an object, or where the value is not a string", () => {
    for (const text of ["", "   ", "[]", '["description", "x"]', '{"description": 5}', "null", "{oops"]) {
      expect(read(text)).toBeUndefined();
    }
  });

  it("every prefix of any arguments object reads as a prefix of the final value (property)", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string().filter((k) => !CALL_DESCRIPTION_KEYS.includes(k)),
          fc.jsonValue(),
          { maxKeys: 3 },
        ),
        fc.string(),
        (others, description) => {
          const json = JSON.stringify({ ...others, description });
          const final = read(json);
          expect(final).toEqual({ value: description, complete: true });
          for (let end = 0; end < json.length; end++) {
            const partial = read(json.slice(0, end));
            if (partial) expect(description.startsWith(partial.value)).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

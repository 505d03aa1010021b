import { partialText } from "@penguin/protocol";
import { describe, expect, test } from "vitest";
import { displayWidth } from "../src/render/display-width.js";
import { MarkdownBlocks } from "../src/render/markdown-blocks.js";
import { loadMarkdownToTerminal } from "../src/render/markdown-terminal.js";
import { Screen } from "../src/render/screen.js";
import { createStyle } from "../src/render/style.js";
import { TerminalRenderer } from "../src/render/terminal-renderer.js";
import { visible } from "./pty.js";

class Sink {
  text = "";
  isTTY = true;
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
}

const DOCUMENT = [
  "# Plan",
  "",
  "Some **bold** and *italic* text with `code`,",
  "over two lines.",
  "",
  "```ts",
  "const a = 1;",
  "",
  "// **not bold** in a fence",
  "```",
  "",
  "- one",
  "  - nested",
  "- two",
  "",
  "| name | size |",
  "| --- | ---: |",
  "| a | 1 |",
  "| longer name | 12345 |",
  "",
  "> quoted",
  "",
  "See [the docs](https://example.com/docs).",
].join("\n");

/** `text` cut into pieces of at most `size` characters, as a model streams it. */
const deltas = (text: string, size: number) => {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
};

describe("splitting streamed Markdown into complete blocks", () => {
  test("every character comes back once and in order, however the text is cut", () => {
    for (const size of [1, 2, 3, 7, 50, DOCUMENT.length]) {
      const blocks = new MarkdownBlocks();
      let back = "";
      for (const piece of deltas(DOCUMENT, size)) back += blocks.push(piece);
      back += blocks.flush();
      expect(back).toBe(DOCUMENT);
    }
  });

  test("a block is handed back once complete; a blank line inside a fence ends nothing", () => {
    const blocks = new MarkdownBlocks();
    expect(blocks.push("# Title\nSome")).toBe("# Title\n");
    expect(blocks.push(" text\n\n")).toBe("");
    // The next line starts at the margin: the paragraph is complete.
    expect(blocks.push("```\ncode\n\nmore\n")).toBe("Some text\n\n");
    expect(blocks.push("```\n")).toBe("```\ncode\n\nmore\n```\n");
    // An indented line after a blank one may continue a list item: no split before it.
    expect(blocks.push("- item\n\n  still the item\n")).toBe("");
    expect(blocks.push("\nafter\n")).toBe("- item\n\n  still the item\n\n");
    expect(blocks.flush()).toBe("after\n");
  });
});

describe("Markdown on a terminal", () => {
  const render = async (markdown: string) => visible((await loadMarkdownToTerminal())(markdown));

  test("emphasis, inline code and headings lose their marks; links show text and URL", async () => {
    const shown = await render("# Plan\n\nSome **bold**, *italic* and `x = 1`; see [docs](https://e.com/d).");
    expect(shown).toBe("Plan\n\nSome bold, italic and x = 1; see docs (https://e.com/d).");
    expect(await render("<https://e.com>")).toBe("https://e.com");
  });

  test("a code block's lines are kept as written, indented, with its language", async () => {
    const shown = await render("```python\ndef f():\n    return **kw\n```");
    expect(shown.split("\n")).toEqual(["  ‹python›", "  def f():", "      return **kw"]);
  });

  test("a table's columns line up, numbers aligned as the table says", async () => {
    const shown = await render("| name | size |\n| --- | ---: |\n| a | 1 |\n| longer name | 12345 |");
    expect(shown.split("\n")).toEqual([
      "name        │  size",
      "────────────┼──────",
      "a           │     1",
      "longer name │ 12345",
    ]);
  });

  test("lists, task lists, quotes and rules", async () => {
    expect(await render("- one\n  - nested\n- [x] done\n\n3. three\n4. four")).toBe(
      "• one\n  • nested\n• [x] done\n\n3. three\n4. four",
    );
    expect(await render("> quoted\n> twice\n\n---")).toBe(`│ quoted\n│ twice\n\n${"─".repeat(40)}`);
    expect(await render("> outer\n>\n> > inner")).toBe("│ outer\n│\n│ │ inner");
  });

  test("wide characters count two columns", () => {
    expect(displayWidth("名前")).toBe(4);
    expect(displayWidth("\u001b[1mab\u001b[22m")).toBe(2);
    expect(displayWidth("e\u0301")).toBe(1);
  });
});

describe("the model's text through the renderer", () => {
  const renderer = (mode: "exact" | "plain" | "markdown") => {
    const out = new Sink();
    const err = new Sink();
    const screen = new Screen({ out: out as never, err: err as never, live: false });
    const r = new TerminalRenderer({
      out: out as never,
      err: err as never,
      style: createStyle(false),
      screen,
      text: mode,
    });
    return { r, out, err };
  };
  const stream = (r: TerminalRenderer, text: string, size = 3) => {
    r.render(partialText("start", ""));
    for (const piece of deltas(text, size)) r.render(partialText("delta", piece));
    r.render(partialText("stop", ""));
  };

  test("exact: the text as the model wrote it, escape sequences included (not a terminal)", () => {
    const { r, out } = renderer("exact");
    stream(r, "**a**\u001b[31m\n");
    expect(out.text).toBe("**a**\u001b[31m\n");
  });

  test("plain and markdown drop escape sequences and control characters", async () => {
    const hostile = "Hi \u001b]0;owned\u0007\u001b[2Jthere\u0008\r \u009b31m!\u001bc";
    const plain = renderer("plain");
    stream(plain.r, hostile, 1);
    // A sequence cut across deltas is dropped whole; a lone ESC shows as a symbol.
    expect(plain.out.text).toBe("Hi there 31m!\u241bc\n");

    const md = renderer("markdown");
    await md.r.prepare();
    stream(md.r, `**${hostile}**`);
    const styling = /\u001b\[[0-9;]*m/g;
    expect(md.out.text.replace(styling, "")).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(visible(md.out.text)).toContain("Hi there");
  });

  test("markdown without its renderer loaded: each block as written, nothing lost", () => {
    const { r, out } = renderer("markdown");
    stream(r, "**a**\n\nb\u001b[2J");
    expect(out.text).toBe("**a**\n\nb\n");
  });

  test("markdown: text still waiting for its block prints before any other line", async () => {
    const { r, out, err } = renderer("markdown");
    await r.prepare();
    r.render(partialText("start", ""));
    r.render(partialText("delta", "first **half"));
    expect(out.text).toBe("");
    r.line("a retry note");
    expect(visible(out.text)).toBe("first **half\n");
    expect(err.text).toBe("a retry note\n");
  });
});

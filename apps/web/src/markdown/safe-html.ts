import createDOMPurify, { type Config, type DOMPurify, type WindowLike } from "dompurify";
import { Marked, type Tokens } from "marked";

/** Highlights one code block: HTML of the code's spans, or undefined for a language it lacks. */
export type Highlight = (code: string, language: string) => string | undefined;

/** Turns a model's Markdown into HTML that is safe to put in the page. */
export interface MarkdownRenderer {
  toSafeHtml(markdown: string, highlight?: Highlight): string;
}

const escapes: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => escapes[char] ?? char);
}

/**
 * What survives sanitizing: HTML elements only (no SVG or MathML, whose namespaces have their own
 * script and link vectors), no forms, frames, media or styles. DOMPurify already drops scripts,
 * on* attributes and `javascript:` URLs; the lists say what else a chat answer never needs.
 */
const PURIFY_CONFIG: Config = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    "style",
    "form",
    "input",
    "button",
    "textarea",
    "select",
    "iframe",
    "object",
    "embed",
    "video",
    "audio",
    "img",
    "svg",
    "math",
  ],
  FORBID_ATTR: ["style", "srcset", "action", "formaction"],
  ALLOW_DATA_ATTR: false,
};

/**
 * The sanitizer of one window. Links get a new tab and no opener or referrer (the hook runs after
 * DOMPurify checked the URL). Without a DOM DOMPurify returns its input unchanged, so a window it
 * cannot work in is refused rather than trusted.
 */
function purifierOf(window: WindowLike): DOMPurify {
  const purify = createDOMPurify(window);
  if (!purify.isSupported) throw new Error("the HTML sanitizer cannot run in this window");
  purify.addHook("afterSanitizeAttributes", (node) => {
    if (node.nodeName === "A" && node.getAttribute("href")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
  });
  return purify;
}

function codeBlock(token: Tokens.Code, highlight: Highlight | undefined): string {
  const language = (token.lang ?? "").trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  const highlighted = language && highlight ? highlight(token.text, language) : undefined;
  const classes = [language ? `language-${language}` : "", highlighted !== undefined ? "hljs" : ""].filter(
    Boolean,
  );
  const classAttribute = classes.length > 0 ? ` class="${escapeHtml(classes.join(" "))}"` : "";
  return `<pre><code${classAttribute}>${highlighted ?? escapeHtml(token.text)}</code></pre>\n`;
}

/**
 * GitHub-flavoured Markdown (tables, task lists, strikethrough). Raw HTML in the text is shown as
 * text, not parsed: a model quoting `<script>` means the characters. Images become links: loading
 * a remote image would send whatever a prompt injection put in its URL to that server.
 */
function markedFor(highlight: Highlight | undefined): Marked {
  return new Marked({
    gfm: true,
    breaks: false,
    async: false,
    renderer: {
      html: ({ text }) => escapeHtml(text),
      image: ({ href, text }) => `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`,
      code: (token) => codeBlock(token, highlight),
    },
  });
}

export function createMarkdownRenderer(window: WindowLike): MarkdownRenderer {
  const purify = purifierOf(window);
  const plain = markedFor(undefined);
  let highlighted: { highlight: Highlight; marked: Marked } | undefined;
  return {
    toSafeHtml(markdown, highlight) {
      let marked = plain;
      if (highlight) {
        if (highlighted?.highlight !== highlight) highlighted = { highlight, marked: markedFor(highlight) };
        marked = highlighted.marked;
      }
      // Without the newlines between and after blocks the text of the page is the answer's own.
      const html = marked.parse(markdown, { async: false }).trim();
      return purify.sanitize(html, PURIFY_CONFIG);
    },
  };
}

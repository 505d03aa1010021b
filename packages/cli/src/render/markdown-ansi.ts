import type { Token, Tokens } from "marked";
import { displayWidth, padToWidth } from "./display-width.js";
import type { Style } from "./style.js";

// Markdown tokens (from marked's lexer) as terminal lines: headings bold, emphasis in italic,
// inline code and code blocks in cyan (a block indented, its text otherwise verbatim), lists
// with bullets or numbers, tables in aligned columns, quotes behind a bar, links as their text
// and URL. A token this file does not know is printed as the model wrote it, so no text is lost.

/** How far a code block is indented from the margin. */
const CODE_INDENT = "  ";
/** Columns a horizontal rule takes. */
const RULE_WIDTH = 40;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** `&amp;`, `&#39;`, `&#x2014;` as the characters they stand for (Markdown text may use them). */
function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? whole;
    const code =
      name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    // Control characters stay as written: decoding must not bring back what was made safe.
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code > 0x10ffff) return whole;
    return String.fromCodePoint(code);
  });
}

/** Lines of text without the final newline a raw token may end with. */
const rawLines = (text: string) => text.replace(/\n+$/, "").split("\n");

export class MarkdownAnsi {
  constructor(private readonly style: Style) {}

  /** Block tokens as lines, a blank line between blocks (none between a tight list's parts). */
  blocks(tokens: readonly Token[], tight = false): string[] {
    const lines: string[] = [];
    for (const token of tokens) {
      const block = this.block(token);
      if (block.length === 0) continue;
      if (lines.length > 0 && !tight) lines.push("");
      lines.push(...block);
    }
    return lines;
  }

  private block(token: Token): string[] {
    const { style } = this;
    switch (token.type) {
      case "space":
      case "checkbox":
        return [];
      case "heading": {
        const text = this.inline((token as Tokens.Heading).tokens);
        const { depth } = token as Tokens.Heading;
        return [depth === 1 ? style.bold(style.underline(text)) : style.bold(text)];
      }
      case "paragraph":
        return this.inline((token as Tokens.Paragraph).tokens).split("\n");
      case "text": {
        const text = token as Tokens.Text;
        return (text.tokens ? this.inline(text.tokens) : decodeEntities(text.text)).split("\n");
      }
      case "code":
        return this.code(token as Tokens.Code);
      case "blockquote":
        return this.blocks((token as Tokens.Blockquote).tokens).map((line) =>
          line === "" ? style.dim("│") : `${style.dim("│")} ${line}`,
        );
      case "list":
        return this.list(token as Tokens.List);
      case "table":
        return this.table(token as Tokens.Table);
      case "hr":
        return [style.dim("─".repeat(RULE_WIDTH))];
      default:
        // HTML, link definitions, and anything newer than this file: as written.
        return rawLines(token.raw);
    }
  }

  private code(token: Tokens.Code): string[] {
    const { style } = this;
    const lang = token.lang?.trim();
    const label = lang ? [style.dim(`${CODE_INDENT}‹${lang}›`)] : [];
    return [...label, ...token.text.split("\n").map((line) => CODE_INDENT + style.cyan(line))];
  }

  private list(token: Tokens.List): string[] {
    const start = typeof token.start === "number" ? token.start : 1;
    const markers = token.items.map((_, i) => (token.ordered ? `${start + i}.` : "•"));
    const width = Math.max(...markers.map((m) => m.length));
    const lines: string[] = [];
    token.items.forEach((item, i) => {
      if (i > 0 && token.loose) lines.push("");
      const body = this.blocks(item.tokens, !item.loose);
      const box = item.task ? (item.checked ? "[x] " : "[ ] ") : "";
      const marker = `${markers[i].padStart(width)} `;
      const rest = " ".repeat(marker.length);
      if (body.length === 0) body.push("");
      body.forEach((line, j) => {
        lines.push(j === 0 ? `${this.style.dim(marker)}${box}${line}` : line === "" ? "" : rest + line);
      });
    });
    return lines;
  }

  private table(token: Tokens.Table): string[] {
    const { style } = this;
    const header = token.header.map((cell) => style.bold(this.inline(cell.tokens)));
    const rows = token.rows.map((row) => row.map((cell) => this.inline(cell.tokens)));
    const widths = header.map((cell, c) =>
      Math.max(displayWidth(cell), ...rows.map((row) => displayWidth(row[c] ?? ""))),
    );
    const line = (cells: string[]) =>
      cells.map((cell, c) => padToWidth(cell, widths[c], token.align[c])).join(style.dim(" │ "));
    const rule = style.dim(widths.map((w) => "─".repeat(w)).join("─┼─"));
    return [line(header), rule, ...rows.map(line)].map((l) => l.trimEnd());
  }

  /** Inline tokens as one string (a hard line break is a newline in it). */
  inline(tokens: readonly Token[] | undefined): string {
    if (!tokens) return "";
    const { style } = this;
    let text = "";
    for (const token of tokens) {
      switch (token.type) {
        case "text": {
          const t = token as Tokens.Text;
          text += t.tokens ? this.inline(t.tokens) : decodeEntities(t.text);
          break;
        }
        case "escape":
          text += (token as Tokens.Escape).text;
          break;
        case "strong":
          text += style.bold(this.inline((token as Tokens.Strong).tokens));
          break;
        case "em":
          text += style.italic(this.inline((token as Tokens.Em).tokens));
          break;
        case "del":
          text += style.strike(this.inline((token as Tokens.Del).tokens));
          break;
        case "codespan":
          text += style.cyan((token as Tokens.Codespan).text);
          break;
        case "br":
          text += "\n";
          break;
        case "link":
          text += this.link(token as Tokens.Link);
          break;
        case "image": {
          const image = token as Tokens.Image;
          text += `${style.dim("[image:")} ${decodeEntities(image.text)}${style.dim(`] (${image.href})`)}`;
          break;
        }
        default:
          text += token.raw;
      }
    }
    return text;
  }

  private link(token: Tokens.Link): string {
    const { style } = this;
    const label = this.inline(token.tokens);
    const plain = token.text.replace(/^mailto:/, "");
    if (plain === token.href || `mailto:${plain}` === token.href || `http://${plain}` === token.href)
      return style.underline(label);
    return `${style.underline(label)} ${style.dim(`(${token.href})`)}`;
  }
}

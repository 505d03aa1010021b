import { useMemo } from "react";
import "./markdown.css";
import { hasCodeFence, useHighlighter } from "../markdown/highlighter.js";
import { useMarkdownRenderer } from "../markdown/lazy-renderer.js";

/**
 * A model's text as Markdown. The only HTML put into the page is the sanitizer's output (see
 * markdown/safe-html.ts); until the renderer's chunk has loaded the text shows as plain text. A
 * streaming text is rendered whole at each delta: React replaces the body in one commit, and an
 * unfinished fence or table renders as what it is so far.
 */
export function MarkdownText({ text }: { text: string }) {
  const renderer = useMarkdownRenderer();
  const highlight = useHighlighter(renderer !== undefined && hasCodeFence(text));
  const html = useMemo(() => renderer?.toSafeHtml(text, highlight), [renderer, text, highlight]);
  if (html === undefined) return <div className="message-body">{text}</div>;
  return (
    <div
      className="message-body markdown"
      data-testid="markdown"
      // biome-ignore lint/security/noDangerouslySetInnerHtml: the HTML is DOMPurify's output.
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}

import { useEffect, useState } from "react";
import type { Highlight } from "./safe-html.js";

let loaded: Highlight | undefined;
let loading: Promise<Highlight> | undefined;

/** The highlighter, fetched as its own chunk the first time an answer has a code block. */
function loadHighlighter(): Promise<Highlight> {
  loading ??= import("./highlight-code.js").then((module) => {
    loaded = module.highlight;
    return module.highlight;
  });
  return loading;
}

/** A fenced code block starts (or has started streaming) in the text. */
export function hasCodeFence(text: string): boolean {
  return /^ {0,3}(```|~~~)/m.test(text);
}

/**
 * The highlighter once loaded, else undefined (and the load starts when `wanted`). Until it
 * arrives code blocks show plain; afterwards every render highlights synchronously, so streamed
 * text never switches back and forth between plain and coloured.
 */
export function useHighlighter(wanted: boolean): Highlight | undefined {
  const [highlight, setHighlight] = useState<Highlight | undefined>(loaded);
  useEffect(() => {
    if (!wanted || highlight) return;
    let current = true;
    loadHighlighter().then(
      (ready) => {
        if (current) setHighlight(() => ready);
      },
      () => {
        // Offline or a stale chunk after an upgrade: code stays plain, which is still readable.
        loading = undefined;
      },
    );
    return () => {
      current = false;
    };
  }, [wanted, highlight]);
  return highlight;
}

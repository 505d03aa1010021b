import { useEffect, useState } from "react";
import type { MarkdownRenderer } from "./safe-html.js";

let loaded: MarkdownRenderer | undefined;
let loading: Promise<MarkdownRenderer> | undefined;

/**
 * The Markdown renderer and its sanitizer are a chunk of their own (about as large as the rest of
 * the app's own code): the login and sessions pages never need them. The chat page asks for them
 * as it opens, so they are usually there before the first answer.
 */
export function loadMarkdownRenderer(): Promise<MarkdownRenderer> {
  loading ??= import("./safe-html.js").then((module) => {
    loaded = module.createMarkdownRenderer(window);
    return loaded;
  });
  loading.catch(() => {
    // Offline or a stale chunk after an upgrade: texts stay plain; a later page may try again.
    loading = undefined;
  });
  return loading;
}

/** The renderer once loaded; until then undefined, and the caller shows the text as it is. */
export function useMarkdownRenderer(): MarkdownRenderer | undefined {
  const [renderer, setRenderer] = useState<MarkdownRenderer | undefined>(loaded);
  useEffect(() => {
    if (renderer) return;
    let current = true;
    loadMarkdownRenderer().then(
      (ready) => {
        if (current) setRenderer(ready);
      },
      () => {},
    );
    return () => {
      current = false;
    };
  }, [renderer]);
  return renderer;
}

import { useEffect } from "react";

/** Elements where j and k are letters being typed, not moves. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/** Moves focus to the next (+1) or previous (-1) tool call card, from the one holding focus. */
export function focusToolCard(step: 1 | -1): void {
  const cards = [...document.querySelectorAll<HTMLElement>('[data-testid="tool-call"]')];
  if (cards.length === 0) return;
  const at = cards.findIndex((card) => card.contains(document.activeElement));
  const next =
    at === -1 ? (step === 1 ? 0 : cards.length - 1) : Math.max(0, Math.min(cards.length - 1, at + step));
  cards[next]?.focus();
  cards[next]?.scrollIntoView({ block: "nearest" });
}

/**
 * The chat's keys: Esc aborts the running task (or compaction), `j`/`k` move between tool
 * calls. Ctrl/Cmd+Enter sending is the composer's own.
 */
export function useChatKeys(options: { busy: boolean; abort(): void }): void {
  const { busy, abort } = options;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === "Escape" && busy) {
        event.preventDefault();
        abort();
        return;
      }
      if (isTyping(event.target)) return;
      if (event.key === "j" || event.key === "k") {
        event.preventDefault();
        focusToolCard(event.key === "j" ? 1 : -1);
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [busy, abort]);
}

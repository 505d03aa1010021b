import { type ReactNode, useEffect, useId, useRef } from "react";

/**
 * A modal confirmation: the browser's own `<dialog>` (focus moves into it and stays there,
 * Escape cancels), named by its heading. Cancel has the focus first, so Enter never destroys.
 */
export function ConfirmDialog(props: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  const { onCancel } = props;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) dialog.showModal();
    const cancel = (event: Event) => {
      event.preventDefault();
      onCancel();
    };
    dialog.addEventListener("cancel", cancel);
    return () => {
      dialog.removeEventListener("cancel", cancel);
      if (dialog.open) dialog.close();
    };
  }, [onCancel]);

  return (
    <dialog ref={ref} className="card confirm-dialog" aria-labelledby={headingId}>
      <h2 id={headingId}>{props.title}</h2>
      {props.children}
      <div className="dialog-buttons">
        {/* biome-ignore lint/a11y/noAutofocus: a modal dialog moves focus to its safe choice */}
        <button type="button" autoFocus onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" className="deny" disabled={props.busy} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

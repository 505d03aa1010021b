import { useId } from "react";
import type { Attachment } from "./attachments.js";

/** The files attached to the next message, a picker to add more, and why any was refused. */
export function AttachmentList({
  attachments,
  refusals,
  problem,
  onAdd,
  onRemove,
}: {
  attachments: readonly Attachment[];
  refusals: readonly string[];
  problem: string | undefined;
  onAdd(files: File[]): void;
  onRemove(index: number): void;
}) {
  const pickerId = useId();
  return (
    <div className="attachments">
      <label htmlFor={pickerId} className="attach-button">
        Attach files
      </label>
      <input
        id={pickerId}
        className="visually-hidden"
        type="file"
        multiple
        data-testid="attach-input"
        onChange={(event) => {
          onAdd([...(event.target.files ?? [])]);
          // The same file may be picked again after it was removed.
          event.target.value = "";
        }}
      />
      {attachments.length > 0 && (
        <ul className="attachment-list" aria-label="Attached files">
          {attachments.map((attachment, index) => (
            // An attachment's place in the list is its identity until it is removed.
            // biome-ignore lint/suspicious/noArrayIndexKey: two files may share a name.
            <li key={index} data-testid="attachment">
              {attachment.kind === "image" && (
                <img src={attachment.url} alt="" className="attachment-thumb" />
              )}
              <span>{attachment.name}</span>
              <button
                type="button"
                className="link"
                aria-label={`Remove ${attachment.name}`}
                onClick={() => onRemove(index)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {[...refusals, ...(problem ? [problem] : [])].map((line) => (
        <p key={line} className="error" role="alert">
          {line}
        </p>
      ))}
    </div>
  );
}

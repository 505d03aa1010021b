import { useEffect, useId, useState } from "react";
import { api } from "../api/client.js";
import type { FolderListing } from "../api/types.js";
import { ErrorText } from "./error-text.js";

/**
 * Browses the server's workspace roots: each root, then a folder's sub-folders (the server lists
 * only folders inside the roots), up to the parent, and "Choose this folder" hands the folder
 * shown to `onChoose`. Every control is a button or a link-like button, so the keyboard drives it.
 */
export function FolderPicker(props: {
  roots: string[];
  start: string | undefined;
  onChoose: (path: string) => void;
  onClose: () => void;
}) {
  const headingId = useId();
  const [listing, setListing] = useState<FolderListing>();
  const [failure, setFailure] = useState<unknown>();
  const first = props.start ?? props.roots[0];

  const open = async (path: string) => {
    setFailure(undefined);
    try {
      setListing(await api.listFolders(path));
    } catch (caught) {
      setFailure(caught);
    }
  };

  // Opens the starting folder once; a start outside the roots falls back to the first root.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only when the picker opens
  useEffect(() => {
    if (first === undefined) return;
    api
      .listFolders(first)
      .then(setListing)
      .catch(() => (props.roots[0] ? open(props.roots[0]) : undefined));
  }, []);

  return (
    <section className="folder-picker card" aria-labelledby={headingId}>
      <h3 id={headingId}>Choose a folder</h3>
      {props.roots.length > 1 && (
        <p>
          Roots:{" "}
          {props.roots.map((root) => (
            <button key={root} type="button" className="link" onClick={() => void open(root)}>
              {root}
            </button>
          ))}
        </p>
      )}
      <ErrorText error={failure} />
      {listing && (
        <>
          <p>
            In <code data-testid="picker-path">{listing.path}</code>
          </p>
          <ul className="folder-list" aria-label={`Folders in ${listing.path}`}>
            {listing.parent !== null && (
              <li>
                <button type="button" className="link" onClick={() => void open(listing.parent as string)}>
                  ↑ Up one folder
                </button>
              </li>
            )}
            {listing.folders.map((folder) => (
              <li key={folder.path}>
                <button
                  type="button"
                  className="link"
                  aria-label={`Open ${folder.name}`}
                  onClick={() => void open(folder.path)}
                >
                  {folder.name}/
                </button>
              </li>
            ))}
            {listing.folders.length === 0 && <li className="muted">No folders here.</li>}
          </ul>
          {listing.truncated && <p className="muted">Only the first folders are shown.</p>}
          <div className="dialog-buttons">
            <button type="button" onClick={() => props.onChoose(listing.path)}>
              Choose this folder
            </button>
            <button type="button" onClick={props.onClose}>
              Close
            </button>
          </div>
        </>
      )}
    </section>
  );
}

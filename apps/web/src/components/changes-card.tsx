import { useState } from "react";
import { api } from "../api/client.js";
import type { RevertConflict, RevertResult } from "../api/types.js";
import {
  type ChangesView,
  type CommandChangesView,
  changeSetName,
  type FileChangeView,
  shownPath,
} from "../stream/changes.js";
import { ErrorText } from "./error-text.js";
import "./changes-card.css";

/** The first 12 hex digits of a hash, or "nothing" for a path with nothing there. */
const shortHash = (hash: string | null | undefined) => (hash ? hash.slice(0, 12) : "nothing");

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

function FileRow({ file, workspace }: { file: FileChangeView; workspace?: string }) {
  const label =
    file.status === "moved" && file.from ? `moved from ${shownPath(file.from, workspace)}` : file.status;
  return (
    <li data-testid="changed-file" data-path={file.path} data-status={file.status}>
      <span className="path">{shownPath(file.path, workspace)}</span>
      <span className="muted">
        {label}
        {file.kind !== "file" ? ` ${file.kind}` : ""}
        {file.restorable ? "" : " · too large to restore"}
      </span>
      {file.kind === "file" && (
        <span className="lines" title="lines added / removed">
          +{file.linesAdded}/−{file.linesRemoved}
          <span className="visually-hidden"> lines added / removed</span>
        </span>
      )}
    </li>
  );
}

/** What the task's commands changed: listed, never reverted; or why it could not be seen. */
function CommandChanges({ commands, workspace }: { commands: CommandChangesView; workspace?: string }) {
  if (commands.tracked === "none") {
    return (
      <p className="muted" data-testid="commands-untracked">
        Changes made by commands are not tracked ({commands.reason}).
      </p>
    );
  }
  if (commands.files.length === 0) return null;
  return (
    <div data-testid="commands-changed">
      <p className="muted">Changed by commands (not undoable):</p>
      <ul className="changes-files">
        {commands.files.map((file) => (
          <li key={file.path}>
            <code>{shownPath(file.path, workspace)}</code> <span className="muted">{file.status}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function ConflictRows({ conflicts, workspace }: { conflicts: RevertConflict[]; workspace?: string }) {
  return (
    <ul className="revert-paths" data-testid="revert-conflicts">
      {conflicts.map((conflict) => (
        <li key={conflict.path} data-path={conflict.path}>
          <span className="path">{shownPath(conflict.path, workspace)}</span>
          <span className="muted">
            {conflict.reason === "not_restorable"
              ? "its earlier content was too large to keep"
              : `changed since (expected ${shortHash(conflict.expected_sha256)}, now ${shortHash(conflict.current_sha256)})`}
          </span>
        </li>
      ))}
    </ul>
  );
}

function PathRows({ paths, workspace }: { paths: string[]; workspace?: string }) {
  return (
    <ul className="revert-paths" data-testid="revert-restored">
      {paths.map((path) => (
        <li key={path}>
          <span className="path">{shownPath(path, workspace)}</span>
        </li>
      ))}
    </ul>
  );
}

type Phase = { step: "idle" } | { step: "working" } | { step: "preview" | "done"; result: RevertResult };

/**
 * A task's (or a revert's) changed files with a Revert button: a click previews the revert (a dry
 * run) and lists what will be restored and what changed since; Revert confirms, Revert anyway
 * overwrites the conflicting files too. The block shows "reverted" once the stream reports it.
 */
export function ChangesCard({
  changes,
  sessionId,
  workspace,
  busy,
}: {
  changes: ChangesView;
  sessionId?: string;
  workspace?: string;
  /** A task or a compaction runs: no revert now. */
  busy: boolean;
}) {
  const [phase, setPhase] = useState<Phase>({ step: "idle" });
  const [failure, setFailure] = useState<unknown>();
  const name = changeSetName(changes.changeSet);
  const reverted = changes.revertedBy !== undefined;

  const run = async (options: { dryRun?: boolean; force?: boolean }) => {
    if (!sessionId) return;
    setPhase({ step: "working" });
    setFailure(undefined);
    try {
      const result = await api.revert(sessionId, changes.changeSet, options);
      setPhase({ step: options.dryRun ? "preview" : "done", result });
    } catch (caught) {
      setFailure(caught);
      setPhase({ step: "idle" });
    }
  };

  const result = phase.step === "preview" || phase.step === "done" ? phase.result : undefined;
  const changedSince = result?.conflicts.some((conflict) => conflict.reason === "changed_since") ?? false;
  return (
    <section
      className={`changes-card${reverted ? " reverted" : ""}`}
      data-testid="changes"
      data-change-set={changes.changeSet}
      data-reverted-by={changes.revertedBy}
      aria-label={`Files changed by ${name}`}
    >
      <header>
        <strong>Files changed</strong>
        <span className="muted">
          {name}
          {changes.reverts ? ` (of ${changeSetName(changes.reverts)})` : ""}
        </span>
        {reverted && (
          <span className="badge" data-testid="changes-reverted">
            reverted by {changes.revertedBy}
          </span>
        )}
      </header>
      {changes.files.length > 0 && (
        <ul className="changes-files">
          {changes.files.map((file) => (
            <FileRow key={file.path} file={file} workspace={workspace} />
          ))}
        </ul>
      )}
      {changes.commands && <CommandChanges commands={changes.commands} workspace={workspace} />}
      {sessionId && changes.files.length > 0 && (phase.step === "idle" || phase.step === "working") && (
        <div className="changes-actions">
          <button
            type="button"
            aria-label={`Revert ${name}`}
            disabled={busy || reverted || phase.step === "working"}
            title={reverted ? "Already reverted" : "Put these files back as they were before"}
            onClick={() => run({ dryRun: true })}
          >
            Revert
          </button>
        </div>
      )}
      {result && (
        <div
          className="revert-preview"
          data-testid={phase.step === "preview" ? "revert-preview" : "revert-result"}
        >
          {phase.step === "preview" ? (
            <p>
              {result.restored.length > 0
                ? `Reverting ${name} restores ${plural(result.restored.length, "path")}:`
                : "Nothing to restore without overwriting newer changes."}
            </p>
          ) : (
            <p role="status">
              {result.restored.length > 0
                ? `Reverted ${name}: ${plural(result.restored.length, "path")} restored${result.change_set ? ` (${result.change_set}, which can be reverted in turn)` : ""}.`
                : `Nothing was restored.`}
            </p>
          )}
          {result.restored.length > 0 && <PathRows paths={result.restored} workspace={workspace} />}
          {result.conflicts.length > 0 && (
            <>
              <p>
                {result.forced
                  ? "Overwritten although changed since:"
                  : `Changed since ${name}, ${phase.step === "preview" ? "left alone unless you revert anyway" : "left alone"}:`}
              </p>
              <ConflictRows conflicts={result.conflicts} workspace={workspace} />
            </>
          )}
          <div className="changes-actions">
            {phase.step === "preview" && result.restored.length > 0 && (
              <button type="button" aria-label={`Revert ${name} now`} disabled={busy} onClick={() => run({})}>
                Revert
              </button>
            )}
            {changedSince && !result.forced && (
              <button type="button" className="deny" disabled={busy} onClick={() => run({ force: true })}>
                Revert anyway
              </button>
            )}
            <button type="button" className="link" onClick={() => setPhase({ step: "idle" })}>
              {phase.step === "preview" ? "Cancel" : "Close"}
            </button>
          </div>
        </div>
      )}
      <ErrorText error={failure} />
    </section>
  );
}

import { defaultToolLimits, type ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool } from "../../../environment/types.js";
import { answer, fail } from "../../call-text.js";
import { checkpointPaths, recordFileEffects } from "../../files/effects.js";
import {
  confinementRefusal,
  executeWithArguments,
  resolveToolPath,
  shownPath,
  stringArg,
} from "../../files/file-tool-support.js";
import { sha256Note, sha256Of } from "../../files/hashes.js";
import {
  appliedMessage,
  parseFailureMessage,
  planFailureMessage,
  writeFailureMessage,
} from "./patch-messages.js";
import { type PatchOperation, parsePatch } from "./patch-parser.js";
import { type PatchLimits, planPatch } from "./patch-plan.js";
import { planEffects, writePlan } from "./patch-write.js";

// "apply_patch: one exact-match patch across several files in the *** Begin Patch envelope with
// add, update, delete and move actions, applied all-or-nothing (validate everything, then write;
// a failure leaves every file as it was)." Parse, plan and write report typed outcomes; the
// messages the model reads are rendered from them in patch-messages.ts.

export function createApplyPatchTool(
  definition: ToolDefinitionConfig,
  limits: PatchLimits = defaultToolLimits().apply_patch,
): BuiltinTool {
  const execute = executeWithArguments({ patch: stringArg("patch") }, async function* ({ patch }, ctx) {
    const parsed = parsePatch(patch);
    if (!parsed.ok) return yield* fail(ctx, parseFailureMessage(parsed.error));
    const refusal = patchPaths(parsed.operations, ctx.workspaceDir)
      .map((path) => confinementRefusal(ctx, path))
      .find((text) => text !== undefined);
    if (refusal !== undefined) return yield* fail(ctx, refusal);
    const planned = await planPatch(ctx, limits, parsed.operations);
    if (!planned.ok) return yield* fail(ctx, planFailureMessage(planned.failure));
    if (ctx.signal?.aborted) return { stopReason: "aborted" };
    const effects = planEffects(planned.plan.steps);
    const saved = await checkpointPaths(
      ctx,
      effects.map((effect) => effect.path),
    );
    if (!saved.ok) return yield* fail(ctx, saved.error);
    recordFileEffects(ctx, effects);
    const written = await writePlan(planned.plan.steps);
    if (!written.ok) return yield* fail(ctx, writeFailureMessage(written.failure));
    let note: string | undefined;
    if (ctx.fileReads) {
      const hashes: string[] = [];
      for (const path of planned.plan.removed) ctx.fileReads.forget(path);
      for (const [path, content] of planned.plan.written) {
        const sha256 = sha256Of(content);
        ctx.fileReads.noteWritten(path, sha256);
        hashes.push(`${sha256Note(sha256).slice(0, -1)} ${shownPath(path)}]`);
      }
      note = hashes.length > 0 ? hashes.join("\n") : undefined;
    }
    return yield* answer(ctx, appliedMessage(planned.plan.summary), { note });
  });

  return {
    name: definition.name,
    definition,
    execute,
    // Every path the patch reads or writes: update, add and delete targets and move destinations,
    // so no other change of any of them can interleave with the patch. A patch that does not
    // parse changes nothing and needs no lock.
    lockKeys: (args, workspaceDir) => {
      if (typeof args.patch !== "string") return [];
      const parsed = parsePatch(args.patch);
      if (!parsed.ok) return [];
      return patchPaths(parsed.operations, workspaceDir);
    },
  };
}

/** Every path a patch reads or writes, resolved: targets and move destinations. */
function patchPaths(operations: readonly PatchOperation[], workspaceDir: string): string[] {
  return operations.flatMap((operation) =>
    (operation.kind === "update" && operation.moveTo !== undefined
      ? [operation.path, operation.moveTo]
      : [operation.path]
    ).map((path) => resolveToolPath(workspaceDir, path)),
  );
}

import { resolve } from "node:path";
import { errorMessage, type OmniMessage } from "@penguin/protocol";
import { modelVisiblePath } from "@penguin/state";
import { FileAccessError } from "../../environment/file-access.js";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import type { PathConfinement } from "../../environment/workspace-confinement.js";
import { fail } from "../call-text.js";
import { SpecialFileError, specialFileMessage } from "./regular-file.js";

// What the file and image tools share: how a path argument becomes a file, how a path is shown
// to the model, how arguments are read defensively, and how a one-shot answer is returned.

/** "relative paths resolve against the Workspace and absolute paths are allowed". */
export function resolveToolPath(workspaceDir: string, filePath: string): string {
  return resolve(workspaceDir, filePath);
}

/** The one spelling of a path the model sees ("modelVisiblePath in the SDK"). */
export function shownPath(absolutePath: string): string {
  return modelVisiblePath(absolutePath);
}

export type ArgumentRead<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Arguments were checked against the tool's schema already, but that schema is user-editable
 * config: the tools still read each argument defensively and say what is wrong.
 */
export function stringArgument(args: Record<string, unknown>, name: string): ArgumentRead<string> {
  const value = args[name];
  if (typeof value !== "string") return { ok: false, error: `argument "${name}" must be a string` };
  return { ok: true, value };
}

export function optionalStringArgument(
  args: Record<string, unknown>,
  name: string,
): ArgumentRead<string | undefined> {
  const value = args[name];
  if (value === undefined || value === null) return { ok: true, value: undefined };
  if (typeof value !== "string") return { ok: false, error: `argument "${name}" must be a string` };
  return { ok: true, value };
}

export function positiveIntegerArgument(
  args: Record<string, unknown>,
  name: string,
  fallback: number,
): ArgumentRead<number> {
  const value = args[name];
  if (value === undefined || value === null) return { ok: true, value: fallback };
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    return { ok: false, error: `argument "${name}" must be an integer >= 1, got ${JSON.stringify(value)}` };
  }
  return { ok: true, value };
}

export function booleanArgument(
  args: Record<string, unknown>,
  name: string,
  fallback: boolean,
): ArgumentRead<boolean> {
  const value = args[name];
  if (value === undefined || value === null) return { ok: true, value: fallback };
  if (typeof value !== "boolean") return { ok: false, error: `argument "${name}" must be true or false` };
  return { ok: true, value };
}

/** A file path argument, resolved against the workspace (and refused where `confinement` says). */
export function pathArgument(
  args: Record<string, unknown>,
  name: string,
  workspaceDir: string,
  confinement?: PathConfinement,
): ArgumentRead<string> {
  const raw = stringArgument(args, name);
  if (!raw.ok) return raw;
  if (raw.value.trim() === "") return { ok: false, error: `argument "${name}" is empty: give a file path` };
  if (raw.value.includes("\0")) return { ok: false, error: `argument "${name}" contains a NUL character` };
  const path = resolveToolPath(workspaceDir, raw.value);
  const refusal = confinement?.refusal(path);
  return refusal === undefined ? { ok: true, value: path } : { ok: false, error: refusal };
}

/** Why a sandboxed session's tool may not touch `path` (undefined: it may, or the session is native). */
export function confinementRefusal(ctx: ToolExecutionContext, path: string): string | undefined {
  return ctx.confinement?.refusal(path);
}

/** How a tool reads one of its arguments: the value, or what is wrong with it. */
export type ArgumentSpec<T> = (
  args: Record<string, unknown>,
  workspaceDir: string,
  confinement?: PathConfinement,
) => ArgumentRead<T>;

export const stringArg =
  (name: string): ArgumentSpec<string> =>
  (args) =>
    stringArgument(args, name);

export const optionalStringArg =
  (name: string): ArgumentSpec<string | undefined> =>
  (args) =>
    optionalStringArgument(args, name);

export const positiveIntegerArg =
  (name: string, fallback: number): ArgumentSpec<number> =>
  (args) =>
    positiveIntegerArgument(args, name, fallback);

export const booleanArg =
  (name: string, fallback: boolean): ArgumentSpec<boolean> =>
  (args) =>
    booleanArgument(args, name, fallback);

export const pathArg =
  (name: string): ArgumentSpec<string> =>
  (args, workspaceDir, confinement) =>
    pathArgument(args, name, workspaceDir, confinement);

/** The values a set of argument specs reads, under the names the tool gave them. */
export type ArgumentValues<Specs> = {
  [Name in keyof Specs]: Specs[Name] extends ArgumentSpec<infer T> ? T : never;
};

/**
 * All of a tool's arguments at once, read in the order the spec lists them: the first one that
 * is wrong is the one reported, so a tool lists them in the order its schema gives them.
 */
export function readArguments<Specs extends Record<string, ArgumentSpec<unknown>>>(
  args: Record<string, unknown>,
  workspaceDir: string,
  specs: Specs,
  confinement?: PathConfinement,
): ArgumentRead<ArgumentValues<Specs>> {
  const values: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(specs)) {
    const outcome = read(args, workspaceDir, confinement);
    if (!outcome.ok) return outcome;
    values[name] = outcome.value;
  }
  // Every name of the spec holds what its own reader returned, which is what the type says.
  return { ok: true, value: values as ArgumentValues<Specs> };
}

/**
 * A tool's execute that reads its arguments first (readArguments) and fails the call with the
 * first wrong one; `run` gets the values, typed by the spec.
 */
export function executeWithArguments<Specs extends Record<string, ArgumentSpec<unknown>>>(
  specs: Specs,
  run: (values: ArgumentValues<Specs>, ctx: ToolExecutionContext) => AsyncGenerator<OmniMessage, ToolResult>,
): BuiltinTool["execute"] {
  return async function* execute(args, ctx) {
    const input = readArguments(args, ctx.workspaceDir, specs, ctx.confinement);
    if (!input.ok) return yield* fail(ctx, input.error);
    return yield* run(input.value, ctx);
  };
}

/** The lock keys of a tool that changes what its path arguments name (the ones given as strings). */
export function pathLockKeys(...names: string[]): NonNullable<BuiltinTool["lockKeys"]> {
  return (args, workspaceDir) =>
    names
      .map((name) => args[name])
      .filter((path): path is string => typeof path === "string")
      .map((path) => resolveToolPath(workspaceDir, path));
}

/** The short code of a file system error (`ENOENT`, `EACCES`, …). */
export function fsErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** A file system failure in words the model can act on, without a stack or raw message noise. */
export function describeFsError(action: string, path: string, error: unknown): string {
  const code = fsErrorCode(error);
  const shown = shownPath(path);
  if (error instanceof SpecialFileError) return specialFileMessage(action, shown, error.kind);
  // The seam's holder (the editor) said why, in words meant for the model.
  if (error instanceof FileAccessError)
    return `Cannot ${action} ${shown}: ${error.message.replace(/\.?$/, ".")}`;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return `Permission denied: cannot ${action} ${shown}.`;
    case "EISDIR":
      return `${shown} is a directory, not a file.`;
    case "ENOTDIR":
      return `Cannot ${action} ${shown}: a part of the path is a file, not a directory.`;
    case "ENOSPC":
      return `Cannot ${action} ${shown}: no space left on the device.`;
    case "EROFS":
      return `Cannot ${action} ${shown}: the file system is read-only.`;
    default:
      return `Cannot ${action} ${shown}: ${code ?? errorMessage(error)}.`;
  }
}

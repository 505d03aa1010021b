import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { SetupError } from "./setup-error.js";

/** The session's workspace as an absolute path; a missing folder or a file is a SetupError. */
export async function existingFolder(path: string): Promise<string> {
  const absolute = resolve(path);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(absolute);
  } catch {
    throw new SetupError(
      `workspace ${absolute} does not exist: create it or pick another folder`,
      "workspace",
    );
  }
  if (!info.isDirectory()) throw new SetupError(`workspace ${absolute} is not a folder`, "workspace");
  return absolute;
}

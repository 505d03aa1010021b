import type { FileAccess } from "../../environment/file-access.js";
import { readRegularFile, writeRegularFile } from "./regular-file.js";

/**
 * The disk as a `FileAccess`: the fallback of a holder that offers only reading or only writing.
 * (A session without a seam keeps the tools' own streaming reads of the disk.) Pipes, devices and
 * sockets are refused as everywhere in the file tools.
 */
export const diskFileAccess: FileAccess = {
  async readText(path) {
    return (await readRegularFile(path)).toString("utf8");
  },
  async writeText(path, text) {
    await writeRegularFile(path, text);
  },
};

import { createHash } from "node:crypto";
import { openRegularForReading } from "./regular-file.js";

// The sha256 hashes of the write guard: what read_file reports and what a guarded change compares.

const HASH_CHUNK_BYTES = 1024 * 1024;

export function sha256Of(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** sha256 (hex) of a whole file, read in chunks so a large file is never held whole; undefined once aborted. */
export async function sha256File(path: string, signal?: AbortSignal): Promise<string | undefined> {
  const hash = createHash("sha256");
  const handle = await openRegularForReading(path);
  try {
    const chunk = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
    for (;;) {
      if (signal?.aborted) return undefined;
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest("hex");
}

/** The note a guarded read or change ends with ("read_file reports the sha256 of the whole file in its note"). */
export function sha256Note(sha256: string): string {
  return `[sha256: ${sha256}]`;
}

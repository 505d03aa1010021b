import { createHash, randomUUID } from "node:crypto";
import { chmod, mkdir, readdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";

// The content-addressed store of checkpoints: `<scratchpad>/checkpoints/blobs/<sha256>`, one file
// per distinct content (a content stored twice is stored once), files 0600 in directories 0700,
// since they hold copies of the user's files. Bounded: a file larger than CHECKPOINT_FILE_LIMIT,
// or one that would take the store past CHECKPOINT_STORE_LIMIT, is not stored, and its checkpoint
// says so (`stored: false`): that prior state cannot be restored, and a revert reports it.

/** The largest file a checkpoint stores (32 MiB). */
export const CHECKPOINT_FILE_LIMIT = 32 * 1024 * 1024;
/** The most a session's store holds (1 GiB). */
export const CHECKPOINT_STORE_LIMIT = 1024 * 1024 * 1024;

export interface StoreLimits {
  fileBytes: number;
  storeBytes: number;
}

export class BlobStore {
  readonly dir: string;
  private readonly blobs: string;
  /** Bytes stored so far (read from the directory on first use: the store survives a resume). */
  private used: number | undefined;

  constructor(
    scratchpadDir: string,
    private readonly limits: StoreLimits = {
      fileBytes: CHECKPOINT_FILE_LIMIT,
      storeBytes: CHECKPOINT_STORE_LIMIT,
    },
  ) {
    this.dir = join(scratchpadDir, "checkpoints");
    this.blobs = join(this.dir, "blobs");
  }

  /** Whether a file of `size` bytes would be stored at all (the per-file limit). */
  fits(size: number): boolean {
    return size <= this.limits.fileBytes;
  }

  /** Stores `bytes` under their sha256: whether they are in the store now. */
  async put(bytes: Buffer): Promise<{ sha256: string; stored: boolean }> {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    if (!this.fits(bytes.length)) return { sha256, stored: false };
    await this.prepare();
    const path = join(this.blobs, sha256);
    if (await exists(path)) return { sha256, stored: true };
    const used = this.used ?? 0;
    if (used + bytes.length > this.limits.storeBytes) return { sha256, stored: false };
    const temporary = join(this.blobs, `.${randomUUID()}.tmp`);
    await writeFile(temporary, bytes, { mode: 0o600 });
    await rename(temporary, path);
    this.used = used + bytes.length;
    return { sha256, stored: true };
  }

  /** The stored content of `sha256`, or undefined when it is not in the store. */
  async get(sha256: string): Promise<Buffer | undefined> {
    try {
      return await readFile(join(this.blobs, sha256));
    } catch {
      return undefined;
    }
  }

  /** Drops the content stored under `sha256` (nothing happens when it is not there). */
  async remove(sha256: string): Promise<void> {
    const path = join(this.blobs, sha256);
    try {
      const { size } = await stat(path);
      await unlink(path);
      if (this.used !== undefined) this.used = Math.max(0, this.used - size);
    } catch {
      // Not stored (over a limit) or already gone.
    }
  }

  private async prepare(): Promise<void> {
    if (this.used !== undefined) return;
    await mkdir(this.blobs, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    await chmod(this.blobs, 0o700);
    let used = 0;
    for (const name of await readdir(this.blobs)) {
      if (name.startsWith(".")) continue;
      used += (await stat(join(this.blobs, name))).size;
    }
    this.used = used;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

import { Readable } from "node:stream";
import { ndJsonStream, type Stream } from "@agentclientprotocol/sdk";

/**
 * The protocol's stream on stdin/stdout. stdout carries protocol messages only: from here on,
 * whatever else writes to `process.stdout` (a library's console.log, a stray warning) is sent to
 * stderr, and only the protocol's writer reaches the real stdout.
 */
export function protocolOnStdio(): { stream: Stream; ended: Promise<void> } {
  const stdout = process.stdout;
  const writeProtocol = stdout.write.bind(stdout);
  stdout.write = process.stderr.write.bind(process.stderr);

  let ended!: () => void;
  const endedPromise = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const output = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        writeProtocol(chunk, (error) => (error ? reject(error) : resolve()));
      }),
  });
  process.stdin.once("end", () => ended());
  process.stdin.once("close", () => ended());
  const input = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>;
  return { stream: ndJsonStream(output, input), ended: endedPromise };
}

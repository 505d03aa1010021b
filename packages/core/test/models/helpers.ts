import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CompleteModelPayload,
  isCompleteModelMessage,
  type OmniMessage,
  type Payload,
  type ToolSpec,
} from "@penguin/protocol";
import type { ModelAdapter, ModelOutcome, ModelRequest } from "../../src/models/types.js";

export interface Collected {
  messages: OmniMessage[];
  payloads: Payload[];
  /** Payloads of the complete model messages only (no partials). */
  complete: CompleteModelPayload[];
  /** The complete model messages, ready to be sent back as context. */
  completeMessages: OmniMessage<CompleteModelPayload>[];
  outcome: ModelOutcome;
}

/** Drains an adapter's stream: every yielded message and the returned outcome. */
export async function collect(adapter: ModelAdapter, request: ModelRequest): Promise<Collected> {
  const messages: OmniMessage[] = [];
  const generator = adapter.stream(request);
  let next = await generator.next();
  while (!next.done) {
    messages.push(next.value);
    next = await generator.next();
  }
  const payloads = messages.map((m) => m.payload);
  const completeMessages = messages.filter(isCompleteModelMessage);
  const complete = completeMessages.map((m) => m.payload);
  return { messages, payloads, complete, completeMessages, outcome: next.value };
}

export function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { systemPrompt: "You are a test.", messages: [], tools: [], thinkingLevel: "none", ...overrides };
}

export const readFileTool: ToolSpec = {
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  permission: "r",
};

/** Concatenated deltas of each partial stream, keyed `text`, `thinking` or `tool:<id>`. */
export function deltasByStream(payloads: Payload[]): Map<string, string> {
  const streams = new Map<string, string>();
  let counter = 0;
  let currentKey = "";
  for (const p of payloads) {
    const record = p as Record<string, unknown>;
    if (!String(record.type).startsWith("partial_")) continue;
    const key =
      record.type === "partial_tool_call" ? `tool:${record.tool_call_id}` : `${String(record.type).slice(8)}`;
    if (record.event_type === "start") {
      currentKey = `${counter++}:${key}`;
      streams.set(currentKey, "");
    } else if (record.event_type === "delta") {
      const fragment = (record.text ?? record.thinking ?? record.arguments ?? "") as string;
      streams.set(currentKey, (streams.get(currentKey) ?? "") + fragment);
    }
  }
  return streams;
}

export function tempFile(name: string, content: string): string {
  const dir = mkdtempSync(join(tmpdir(), "penguin-models-"));
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

import type { OmniMessage } from "@penguin/protocol";
import { type RedactingStream, SecretRedactor } from "../environment/redact.js";

// Secrets in the model's own tool calls. A model that was shown a configured secret (an MCP
// header value, a key) may type it into a call's arguments; the call runs with what it wrote,
// but the trace and the stream get the arguments redacted, as tool output is. The complete
// `tool_call` is redacted whole; its `partial_tool_call` deltas go through a streaming redactor
// per call, so the deltas still concatenate to exactly the complete (redacted) arguments.

/** The spellings a secret can have inside a JSON arguments string: as is, and JSON-escaped. */
function spellingsInJson(secrets: readonly string[]): string[] {
  return secrets.flatMap((secret) => {
    const escaped = JSON.stringify(secret).slice(1, -1);
    return escaped === secret ? [secret] : [secret, escaped];
  });
}

export class ToolCallRedaction {
  private readonly redactor: SecretRedactor;
  /** The streaming redactor of each call whose arguments are streaming, by origin and id. */
  private readonly streams = new Map<string, RedactingStream>();

  constructor(secrets: readonly string[]) {
    this.redactor = new SecretRedactor(spellingsInJson(secrets));
  }

  /** The message as it may be traced or streamed: the same object when nothing changes. */
  apply(message: OmniMessage): OmniMessage {
    if (!this.redactor.active || message.type !== "model_msg") return message;
    const payload = message.payload;
    if (payload.type === "tool_call") {
      const redacted = this.redactor.redact(payload.arguments);
      return redacted === payload.arguments
        ? message
        : { ...message, payload: { ...payload, arguments: redacted } };
    }
    if (payload.type === "partial_tool_call") {
      const key = `${(message.origin ?? []).join("/")}\u0000${payload.tool_call_id}`;
      let stream = this.streams.get(key);
      if (!stream) {
        stream = this.redactor.stream();
        this.streams.set(key, stream);
      }
      let text = stream.push(payload.arguments);
      if (payload.event_type === "stop") {
        text += stream.flush();
        this.streams.delete(key);
      }
      return text === payload.arguments ? message : { ...message, payload: { ...payload, arguments: text } };
    }
    return message;
  }
}

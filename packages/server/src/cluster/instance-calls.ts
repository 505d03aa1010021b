import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { AuthState } from "../http/context.js";
import type { RelayedEvent } from "./relay-codec.js";

/** Calls and replies between instances travel on the relay under `instance:<the addressee's id>`. */
const CALL_CHANNEL_PREFIX = "instance:";
/** Set on a call an instance runs for another: it is answered here, never sent on again. */
export const RELAYED_CALL_HEADER = "x-penguin-relayed";
/** How long an instance waits for the owner of a session to answer a call it passed on. */
export const RELAYED_CALL_TIMEOUT_MS = 15_000;
/**
 * The headers the owner needs to read the call. Never the credentials: notifications may reach
 * the database's statement log, so the call carries who the caller is (checked by the instance
 * it reached), not the cookie or token that proved it.
 */
const FORWARDED_HEADERS = ["content-type", "accept"] as const;

/** Who made a call passed on: the user the first instance authenticated, and how (its AuthState by user id). */
export type RelayedCaller = Omit<AuthState, "user"> & { userId: string };

/** The caller of an authenticated call, as it travels to the owner instance. */
export function relayedCallerOf({ user, ...how }: AuthState): RelayedCaller {
  return { ...how, userId: user.id };
}

interface CallMessage {
  kind: "call";
  id: string;
  from: string;
  method: string;
  /** Path and query string. */
  path: string;
  headers: Record<string, string>;
  caller: RelayedCaller;
  body?: string;
}

interface ReplyMessage {
  kind: "reply";
  id: string;
  status: number;
  contentType?: string;
  body: string;
}

export interface InstanceCallsOptions {
  instanceId: string;
  /** Sends a message to the other instances (the relay). */
  send(event: RelayedEvent): void;
  /** Runs a call on this instance's own app as `caller` (refused when the user is gone or disabled). */
  fetch(request: Request, caller: RelayedCaller): Promise<Response>;
  /** This instance's own URL, whose host and origin a call run here carries. */
  selfUrl(): string;
  logger: Logger;
  timeoutMs?: number;
}

/**
 * "A call that needs the runtime on another instance is routed there": the instance a client
 * reached passes the call, as the client made it (its credentials too), to the session's owner
 * through the database's notifications; the owner runs it on its own app as the same user (whom
 * it checks is still there and enabled), and the answer comes back the same way. An approval given on one instance so reaches the
 * task that waits for it on another.
 */
export class InstanceCalls {
  readonly #waiting = new Map<
    string,
    { resolve: (response: Response | undefined) => void; timer: NodeJS.Timeout }
  >();

  constructor(private readonly options: InstanceCallsOptions) {}

  /** The owner's answer to the call, or undefined when it did not answer in time. */
  forward(
    ownerId: string,
    request: Request,
    caller: RelayedCaller,
    body: string | undefined,
  ): Promise<Response | undefined> {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    const call: CallMessage = {
      kind: "call",
      id: randomUUID(),
      from: this.options.instanceId,
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers,
      caller,
      ...(body !== undefined ? { body } : {}),
    };
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(call.id);
        resolve(undefined);
      }, this.options.timeoutMs ?? RELAYED_CALL_TIMEOUT_MS);
      this.#waiting.set(call.id, { resolve, timer });
      this.options.send({ channel: `${CALL_CHANNEL_PREFIX}${ownerId}`, data: JSON.stringify(call) });
    });
  }

  /** True when `event` is a call or reply between instances (this one's to handle, or nobody's here). */
  receive(event: RelayedEvent): boolean {
    if (!event.channel.startsWith(CALL_CHANNEL_PREFIX)) return false;
    if (event.channel !== `${CALL_CHANNEL_PREFIX}${this.options.instanceId}`) return true;
    let message: CallMessage | ReplyMessage;
    try {
      message = JSON.parse(event.data) as CallMessage | ReplyMessage;
    } catch {
      return true;
    }
    if (message.kind === "reply") this.#answered(message);
    else if (message.kind === "call") void this.#run(message);
    return true;
  }

  /** Stops waiting: every call still out gets no answer. */
  close(): void {
    for (const { resolve, timer } of this.#waiting.values()) {
      clearTimeout(timer);
      resolve(undefined);
    }
    this.#waiting.clear();
  }

  #answered(reply: ReplyMessage): void {
    const waiting = this.#waiting.get(reply.id);
    if (!waiting) return;
    this.#waiting.delete(reply.id);
    clearTimeout(waiting.timer);
    const headers = reply.contentType ? { "content-type": reply.contentType } : undefined;
    waiting.resolve(
      new Response(reply.status === 204 ? null : reply.body, { status: reply.status, headers }),
    );
  }

  async #run(call: CallMessage): Promise<void> {
    const self = new URL(this.options.selfUrl());
    let reply: ReplyMessage;
    try {
      // Addressed to this instance (its host check passes); the instance that passed the call
      // on checked the client's credentials and origin.
      const response = await this.options.fetch(
        new Request(new URL(call.path, self), {
          method: call.method,
          headers: { ...call.headers, host: self.host, [RELAYED_CALL_HEADER]: "1" },
          ...(call.body !== undefined ? { body: call.body } : {}),
        }),
        call.caller,
      );
      reply = {
        kind: "reply",
        id: call.id,
        status: response.status,
        body: await response.text(),
        ...(response.headers.get("content-type")
          ? { contentType: response.headers.get("content-type") ?? "" }
          : {}),
      };
    } catch (error) {
      this.options.logger.error(
        { err: error, path: call.path },
        "a call passed on by another instance failed",
      );
      reply = {
        kind: "reply",
        id: call.id,
        status: 500,
        contentType: "application/json",
        body: '{"error":"internal_error"}',
      };
    }
    this.options.send({ channel: `${CALL_CHANNEL_PREFIX}${call.from}`, data: JSON.stringify(reply) });
  }
}

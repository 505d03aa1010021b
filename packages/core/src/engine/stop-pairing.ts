import { isPartialMessage, type OmniMessage } from "@penguin/protocol";

function isPartialStop(message: OmniMessage): boolean {
  return isPartialMessage(message) && (message.payload as { event_type?: string }).event_type === "stop";
}

/**
 * One producer's messages on their way into the turn's merge queue, with each partial stream's
 * `stop` handed over together with the message after it. The model stream and every tool call
 * push concurrently, and a step of one producer may wait on a timer or I/O between its `stop`
 * and its complete message; handing both over in one go keeps another producer's message from
 * landing between them ("start, deltas, stop, then the complete message right away").
 */
export class StopPairing {
  private held: OmniMessage | undefined;

  constructor(private readonly send: (message: OmniMessage) => void) {}

  push(message: OmniMessage): void {
    const held = this.held;
    this.held = undefined;
    if (held) this.send(held);
    if (isPartialStop(message)) this.held = message;
    else this.send(message);
  }

  /** The producer has ended: a stop still held (an abandoned stream) goes out alone. */
  end(): void {
    const held = this.held;
    this.held = undefined;
    if (held) this.send(held);
  }
}

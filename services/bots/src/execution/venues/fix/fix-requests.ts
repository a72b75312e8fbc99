import type { ILooseObject } from "jspurefix";
import { VenueError } from "../../kernel/live-venue.js";

interface Waiting {
  resolve: (messages: ILooseObject[]) => void;
  reject: (e: Error) => void;
  collected: ILooseObject[];
  /** How many reports a list answer has, once the venue said (a positions ack). */
  expected?: number;
  timer: NodeJS.Timeout;
}

/**
 * The adapter's requests awaiting the venue's answer, by the id the request carried (ClOrdID of
 * a cancel or mass cancel, OrdStatusReqID, MassStatusReqID, PosReqID, MDReqID). Each has a
 * deadline; an answer may be one message or a list the venue ends.
 */
export class PendingRequests {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly deadlineMs: number) {}

  /** Waits for the answer to request `id`; rejects past the deadline. */
  expect(id: string, what: string): Promise<ILooseObject[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new VenueError("timeout", `${what}: no answer within ${this.deadlineMs} ms`));
      }, this.deadlineMs);
      this.waiting.set(id, { resolve, reject, collected: [], timer });
    });
  }

  has(id: string): boolean {
    return this.waiting.has(id);
  }

  /** One message of a list answer; `last` ends it. */
  collect(id: string, body: ILooseObject, last: boolean): void {
    const w = this.waiting.get(id);
    if (!w) return;
    w.collected.push(body);
    if (last || (w.expected !== undefined && w.collected.length >= w.expected))
      this.answer(id, null);
  }

  /** The venue said how many reports a list answer has. */
  expectCount(id: string, count: number): void {
    const w = this.waiting.get(id);
    if (!w) return;
    w.expected = count;
    if (w.collected.length >= count) this.answer(id, null);
  }

  /** The answer (its last message, when `body` is given). */
  answer(id: string, body: ILooseObject | null): void {
    const w = this.waiting.get(id);
    if (!w) return;
    if (body) w.collected.push(body);
    this.settle(id, w);
    w.resolve(w.collected);
  }

  refuse(id: string, message: string): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.settle(id, w);
    w.reject(new VenueError("rejected", message));
  }

  forget(id: string): void {
    const w = this.waiting.get(id);
    if (w) this.settle(id, w);
  }

  /** The session ended: no answer will come to anything asked on it. */
  failAll(e: Error): void {
    for (const [id, w] of [...this.waiting]) {
      this.settle(id, w);
      w.reject(e);
    }
  }

  private settle(id: string, w: Waiting): void {
    clearTimeout(w.timer);
    this.waiting.delete(id);
  }
}

// jspurefix resolves its parts through tsyringe, which needs the metadata polyfill loaded first.
import "reflect-metadata";
import {
  AsciiSession,
  DITokens,
  type FixEntity,
  type IJsFixConfig,
  type ILooseObject,
  type MsgView,
} from "jspurefix";
import { describeSession, fixRuntime } from "./fix-runtime.js";

export interface Received {
  readonly msgType: string;
  readonly body: ILooseObject;
  readonly at: bigint;
}

/**
 * A bare jspurefix initiator session: it logs on, keeps heartbeats, and records what it hears.
 * The tests' and the bench's side of a conversation with the venue.
 */
class RecordingSession extends AsciiSession {
  readonly received: Received[] = [];
  /** The MsgType of every message decoded, session messages included (heartbeats, resets). */
  readonly decoded: string[] = [];
  logoutText: string | null = null;
  onReadyCalled = () => {};
  onStoppedCalled: (error: Error | null) => void = () => {};
  onMessage: (r: Received) => void = () => {};

  constructor(config: IJsFixConfig) {
    super(config);
  }

  sendMessage(msgType: string, body: ILooseObject): void {
    this.send(msgType, body);
  }

  protected onApplicationMsg(msgType: string, view: MsgView): void {
    const r = {
      msgType,
      body: (view.toObject() ?? {}) as ILooseObject,
      at: process.hrtime.bigint(),
    };
    this.received.push(r);
    this.onMessage(r);
  }
  protected onReady(): void {
    this.onReadyCalled();
  }
  protected onStopped(error?: Error): void {
    this.onStoppedCalled(error ?? null);
  }
  protected onLogon(): boolean {
    return true;
  }
  protected onDecoded(msgType: string, txt: string): void {
    this.decoded.push(msgType);
    if (msgType === "5") this.logoutText = /(?:^|\|)58=([^|]*)/.exec(txt)?.[1] ?? "";
  }
  protected onEncoded(): void {}
}

export interface FixClientOptions {
  host?: string;
  port: number;
  username: string;
  password: string;
  senderCompId?: string;
  targetCompId?: string;
  heartbeatSeconds?: number;
}

export interface FixClient {
  /** Resolves at logon; rejects with the reason when the session ends first. */
  readonly ready: Promise<void>;
  /** Resolves when the session ends: null after a clean logout, else the error it ended on. */
  readonly ended: Promise<Error | null>;
  readonly received: readonly Received[];
  /** The MsgType of every message heard, session messages included. */
  readonly decoded: readonly string[];
  /** The Text (58) of a Logout the venue sent, if it sent one. */
  logoutText(): string | null;
  send(msgType: string, body: ILooseObject): void;
  onMessage(listener: (r: Received) => void): void;
  /** Logs out and waits for the session to end. */
  close(): Promise<void>;
}

export async function connectFixClient(options: FixClientOptions): Promise<FixClient> {
  const description = describeSession({
    type: "initiator",
    name: options.senderCompId ?? "svc-client",
    host: options.host ?? "127.0.0.1",
    port: options.port,
    senderCompId: options.senderCompId ?? "SVC-CLIENT",
    targetCompId: options.targetCompId ?? "SVC-VENUE",
    heartbeatSeconds: options.heartbeatSeconds ?? 30,
    username: options.username,
    password: options.password,
  });
  const container = await fixRuntime().makeSystem(description);
  let session: RecordingSession | undefined;
  container.register(DITokens.FixSession, {
    useFactory: (c) =>
      (session = new RecordingSession(c.resolve<IJsFixConfig>(DITokens.IJsFixConfig))),
  });
  let endedWith!: (e: Error | null) => void;
  const ended = new Promise<Error | null>((r) => (endedWith = r));
  let readyOk!: () => void;
  let readyFail!: (e: Error) => void;
  const ready = new Promise<void>((res, rej) => ((readyOk = res), (readyFail = rej)));
  ready.catch(() => {});
  const entity = container.resolve<FixEntity>(DITokens.FixEntity);
  const run = entity.start() as Promise<unknown>;
  const s = session!;
  let listeners: Array<(r: Received) => void> = [];
  s.onMessage = (r) => listeners.forEach((l) => l(r));
  s.onReadyCalled = () => readyOk();
  s.onStoppedCalled = (e) => {
    readyFail(e ?? new Error("session ended before logon"));
    endedWith(e);
  };
  run.then(
    () => {
      readyFail(new Error("session ended before logon"));
      endedWith(null);
    },
    (e: Error) => {
      readyFail(e);
      endedWith(e);
    },
  );
  return {
    ready,
    ended,
    received: s.received,
    decoded: s.decoded,
    logoutText: () => s.logoutText,
    send: (msgType, body) => s.sendMessage(msgType, body),
    onMessage: (l) => void (listeners = [...listeners, l]),
    async close() {
      s.done();
      await ended;
    },
  };
}

// jspurefix resolves its parts through tsyringe, which needs the metadata polyfill loaded first.
import "reflect-metadata";
import {
  AsciiSession,
  DefinitionFactory,
  DITokens,
  JsFixLoggerFactory,
  SessionContainer,
  type FixDefinitions,
  type FixEntity,
  type IJsFixConfig,
  type IJsFixLogger,
  type ILooseObject,
  type ISessionDescription,
  type MsgView,
} from "jspurefix";
import { container } from "tsyringe";

/**
 * jspurefix keeps its logger factory and parsed dictionaries in tsyringe's global container: one
 * per process, shared with anything else that runs jspurefix beside the adapter (the dev venue in
 * a test). Whoever comes first registers them; the adapter only adds what is missing. (The dev
 * venue has its own copy of this: a service does not import a development tool.)
 */
class QuietLogFactory extends JsFixLoggerFactory {
  logger(type: string): IJsFixLogger {
    const loud = process.env.SVC_FIX_ADAPTER_DEBUG === "1";
    const say = (m: string) => loud && console.error(`[fix ${type}] ${m}`);
    return { debug: say, info: say, warning: say, error: (e) => say(e.message) };
  }
  plain(): IJsFixLogger {
    return this.logger("plain");
  }
}

/** The FIX 4.4 repository is parsed once per process, not per session (seconds on a busy host). */
class CachingDefinitionFactory extends DefinitionFactory {
  private readonly cache = new Map<string, Promise<FixDefinitions>>();
  override getDefinitions(path: string, ...rest: unknown[]): Promise<FixDefinitions> {
    let definitions = this.cache.get(path);
    if (!definitions) {
      definitions = super.getDefinitions(path, ...(rest as []));
      definitions.catch(() => this.cache.delete(path));
      this.cache.set(path, definitions);
    }
    return definitions;
  }
}

let runtime: SessionContainer | undefined;

function fixRuntime(): SessionContainer {
  if (runtime) return runtime;
  runtime = new SessionContainer();
  if (!container.isRegistered(DITokens.JsFixLoggerFactory)) {
    runtime.registerGlobal(new QuietLogFactory());
    container.registerInstance(DefinitionFactory, new CachingDefinitionFactory());
  }
  return runtime;
}

export interface InitiatorOptions {
  host: string;
  port: number;
  senderCompId: string;
  targetCompId: string;
  username: string;
  password: string;
  heartbeatSeconds: number;
}

/** What a session tells its owner. */
export interface SessionListener {
  ready(): void;
  message(msgType: string, body: ILooseObject): void;
  /** The session ended: null after a clean logout; `logout` is the Text of the venue's Logout. */
  stopped(error: Error | null, logout: string | null): void;
}

/** One initiator session: logon, heartbeats, resend and sequence reset are jspurefix's. */
class AdapterSession extends AsciiSession {
  logoutText: string | null = null;

  constructor(
    config: IJsFixConfig,
    private readonly listener: SessionListener,
  ) {
    super(config);
    // jspurefix also emits an end as an 'error' event, which throws without a listener; the
    // listener hears of it through onStopped.
    this.on("error", () => {});
  }

  sendMessage(msgType: string, body: ILooseObject): void {
    this.send(msgType, body);
  }
  protected onApplicationMsg(msgType: string, view: MsgView): void {
    this.listener.message(msgType, (view.toObject() ?? {}) as ILooseObject);
  }
  protected onReady(): void {
    this.listener.ready();
  }
  protected onStopped(error?: Error): void {
    this.listener.stopped(error ?? null, this.logoutText);
  }
  protected onLogon(): boolean {
    return true;
  }
  protected onDecoded(msgType: string, txt: string): void {
    if (msgType === "5") this.logoutText = /(?:^|\|)58=([^|]*)/.exec(txt)?.[1] ?? "";
  }
  protected onEncoded(): void {}
}

export interface InitiatorHandle {
  send(msgType: string, body: ILooseObject): void;
  /**
   * Logs out and waits up to `graceMs` for the venue's answer, then (or at once, without a
   * grace) cuts the connection; resolves when the session ended.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Starts a FIX 4.4 initiator over the dictionary that ships in jspurefix (repo44). */
export async function startInitiator(
  o: InitiatorOptions,
  listener: SessionListener,
): Promise<InitiatorHandle> {
  const description = {
    application: {
      type: "initiator",
      name: o.senderCompId,
      protocol: "ascii",
      dictionary: "repo44",
      tcp: { host: o.host, port: o.port },
      // The adapter reconnects itself, so that it can ask the venue what it missed first.
      reconnectSeconds: 0,
    },
    Username: o.username,
    Password: o.password,
    EncryptMethod: 0,
    // Each logon starts both sides at 1: after a reconnect the adapter learns its orders from
    // status requests, not from a replay of the last session (the dev venue does the same).
    ResetSeqNumFlag: true,
    HeartBtInt: o.heartbeatSeconds,
    SenderCompId: o.senderCompId,
    TargetCompID: o.targetCompId,
    BeginString: "FIX.4.4",
  } as unknown as ISessionDescription;
  const system = await fixRuntime().makeSystem(description);
  let ended!: () => void;
  const end = new Promise<void>((r) => (ended = r));
  let stopped = false;
  const once: SessionListener = {
    ready: () => listener.ready(),
    message: (t, b) => listener.message(t, b),
    // jspurefix tells of an end twice (the session's onStopped, the entity's promise).
    stopped: (e, logout) => {
      ended();
      if (stopped) return;
      stopped = true;
      listener.stopped(e, logout);
    },
  };
  let session: AdapterSession | undefined;
  system.register(DITokens.FixSession, {
    useFactory: (c) =>
      (session = new AdapterSession(c.resolve<IJsFixConfig>(DITokens.IJsFixConfig), once)),
  });
  const entity = system.resolve<FixEntity>(DITokens.FixEntity);
  const run = entity.start() as Promise<unknown>;
  const s = session as AdapterSession | undefined;
  if (!s) {
    const why = await run.then(
      () => "the session ended before it began",
      (e: Error) => e.message,
    );
    throw new Error(`no FIX session with ${o.host}:${o.port}: ${why}`);
  }
  run.then(
    () => once.stopped(null, s.logoutText),
    (e: Error) => once.stopped(e, s.logoutText),
  );
  return {
    send: (t, b) => s.sendMessage(t, b),
    async stop(graceMs = 0) {
      if (graceMs > 0) {
        s.done();
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<false>((r) => (timer = setTimeout(() => r(false), graceMs)));
        const ended = await Promise.race([end.then(() => true as const), grace]);
        clearTimeout(timer);
        if (ended) return;
      }
      (s as unknown as { terminate(e: Error): void }).terminate(new Error("closed"));
      await end;
    },
  };
}

import "reflect-metadata";
import {
  DefinitionFactory,
  JsFixLoggerFactory,
  SessionContainer,
  type FixDefinitions,
  type IJsFixLogger,
  type ISessionDescription,
} from "jspurefix";
import { container } from "tsyringe";

export type FixLogLevel = "debug" | "info" | "warning" | "error" | "none";
const rank: Record<FixLogLevel, number> = { debug: 0, info: 1, warning: 2, error: 3, none: 4 };

/**
 * jspurefix keeps its logger factory and parsed dictionaries in tsyringe's global container, so
 * one process has one of each: a venue and the clients a test starts beside it share them. The
 * level is read at each line, so a caller can quiet the engine after start.
 */
class ConsoleLogFactory extends JsFixLoggerFactory {
  level: FixLogLevel = "warning";
  logger(type: string): IJsFixLogger {
    const at = (level: FixLogLevel, text: () => string) => {
      if (rank[level] >= rank[this.level]) console.error(`[fix ${type}] ${text()}`);
    };
    return {
      debug: (m) => at("debug", () => m),
      info: (m) => at("info", () => m),
      warning: (m) => at("warning", () => m),
      error: (e) => at("error", () => e.message),
    };
  }
  plain(): IJsFixLogger {
    return this.logger("plain");
  }
}

/**
 * jspurefix parses the dictionary again for every session it builds (the whole FIX 4.4
 * repository: seconds on a busy machine); definitions are read-only, so one parse serves all.
 */
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

const logFactory = new ConsoleLogFactory();
let fixContainer: SessionContainer | undefined;

export function setFixLogLevel(level: FixLogLevel): void {
  logFactory.level = level;
}

/** The one SessionContainer of this process (parsing the FIX 4.4 dictionary once). */
export function fixRuntime(): SessionContainer {
  if (!fixContainer) {
    fixContainer = new SessionContainer();
    fixContainer.registerGlobal(logFactory);
    container.registerInstance(DefinitionFactory, new CachingDefinitionFactory());
  }
  return fixContainer;
}

/** A FIX 4.4 session description over the dictionary that ships in jspurefix (repo44). */
export function describeSession(options: {
  type: "acceptor" | "initiator";
  name: string;
  host: string;
  port: number;
  senderCompId: string;
  targetCompId: string;
  heartbeatSeconds: number;
  username?: string;
  password?: string;
}): ISessionDescription {
  return {
    application: {
      type: options.type,
      name: options.name,
      protocol: "ascii",
      dictionary: "repo44",
      tcp: { host: options.host, port: options.port },
      reconnectSeconds: 0,
    },
    ...(options.username !== undefined ? { Username: options.username } : {}),
    ...(options.password !== undefined ? { Password: options.password } : {}),
    EncryptMethod: 0,
    // Each logon starts both sides at 1: a client learns its orders after a reconnect from
    // OrderMassStatusRequest, not from a replay of the last session's messages.
    ResetSeqNumFlag: true,
    HeartBtInt: options.heartbeatSeconds,
    SenderCompId: options.senderCompId,
    TargetCompID: options.targetCompId,
    BeginString: "FIX.4.4",
  } as unknown as ISessionDescription;
}

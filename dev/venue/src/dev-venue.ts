// jspurefix resolves its parts through tsyringe, which needs the metadata polyfill loaded first.
import "reflect-metadata";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import { DITokens, type FixEntity, type IJsFixConfig } from "jspurefix";
import { TcpAcceptor } from "jspurefix/dist/transport/tcp/tcp-acceptor.js";
import { startBinanceFacade, type BinanceFacade } from "./binance-facade.js";
import { Exchange } from "./exchange.js";
import type { HistorySeed } from "./klines.js";
import { noFaults, parseFaultUpdate, type FaultSwitches } from "./faults.js";
import { describeSession, fixRuntime } from "./fix-runtime.js";
import { SeededLiquidity } from "./liquidity.js";
import { HostBoundTcpAcceptor } from "./loopback-acceptor.js";
import { VenueSession, type VenueContext } from "./venue-session.js";

export interface LiquiditySeed {
  symbol: string;
  /** The closes the quotes follow (see price-path.ts). */
  closes: readonly number[];
  levels?: number;
  size?: number;
  step?: number;
  tick?: number;
}

export interface DevVenueOptions {
  host?: string;
  /** 0 (the default) takes a free port; `port` on the result says which. */
  port?: number;
  username: string;
  password: string;
  /**
   * More accounts that may log on over FIX, each with its own orders and positions (many bots,
   * each with a venue account of its own); the Binance facade trades as `username` only.
   */
  accounts?: readonly { username: string; password: string }[];
  /** The venue's CompID; clients may log on with any SenderCompID. */
  compId?: string;
  heartbeatSeconds?: number;
  /** Symbols listed without seeded liquidity (a test's own book). */
  symbols?: readonly string[];
  liquidity?: readonly LiquiditySeed[];
  /** How often the liquidity moves to the next bar; 0 leaves it to `advanceLiquidity()`. */
  barIntervalMs?: number;
  /** Port of the fault switches' HTTP endpoint on `host`; null (the default) runs none. */
  controlPort?: number | null;
  /**
   * A Binance spot REST facade on `host` in front of the same book, trading as `username`;
   * absent (the default) runs none.
   */
  binance?: {
    apiKey: string;
    apiSecret: string;
    port?: number;
    /** Past bars its klines serve (a downloader's history); none by default. */
    history?: readonly HistorySeed[];
    onKlines?: () => void;
  };
}

export interface DevVenue {
  readonly host: string;
  readonly port: number;
  readonly compId: string;
  readonly controlUrl: string | null;
  /** The Binance facade's base URL (ccxt's urls.api.public and private are it + /api/v3). */
  readonly binanceUrl: string | null;
  readonly exchange: Exchange;
  readonly faults: FaultSwitches;
  setFaults(update: Partial<FaultSwitches>): FaultSwitches;
  /** Drops every logged-on session without a Logout; returns how many. */
  dropSessions(): number;
  sessionCount(): number;
  advanceLiquidity(): void;
  close(): Promise<void>;
}

export async function startDevVenue(options: DevVenueOptions): Promise<DevVenue> {
  const host = options.host ?? "127.0.0.1";
  const compId = options.compId ?? "SVC-VENUE";
  const seeds = options.liquidity ?? [];
  const exchange = new Exchange([
    ...new Set([...(options.symbols ?? []), ...seeds.map((s) => s.symbol)]),
  ]);
  const faults = noFaults();
  const context: VenueContext = {
    exchange,
    faults,
    credentials: { username: options.username, password: options.password },
    ...(options.accounts ? { accounts: options.accounts } : {}),
    sessions: new Set(),
  };

  const makers = seeds.map(
    (s) =>
      new SeededLiquidity(exchange, {
        symbol: s.symbol,
        closes: s.closes,
        levels: s.levels ?? 5,
        size: s.size ?? 1,
        step: s.step ?? 0.0005,
        tick: s.tick ?? 0.01,
      }),
  );
  for (const m of makers) m.quote();

  const description = describeSession({
    type: "acceptor",
    name: "dev-venue",
    host,
    port: options.port ?? 0,
    senderCompId: compId,
    targetCompId: "*",
    heartbeatSeconds: options.heartbeatSeconds ?? 30,
  });
  const container = await fixRuntime().makeSystem(description);
  let acceptor: HostBoundTcpAcceptor | undefined;
  container.register(TcpAcceptor, {
    useFactory: (c) =>
      (acceptor = new HostBoundTcpAcceptor(c.resolve<IJsFixConfig>(DITokens.IJsFixConfig))),
  });
  container.register(DITokens.FixSession, {
    useFactory: (c) => new VenueSession(c.resolve<IJsFixConfig>(DITokens.IJsFixConfig), context),
  });
  const listener = container.resolve<FixEntity>(DITokens.FixEntity);
  const stopped = listener.start() as Promise<unknown>;
  if (!acceptor) throw new Error("jspurefix did not build its acceptor through the container");
  let port: number;
  try {
    port = await acceptor.listening;
  } catch (e) {
    (listener as unknown as { stop(): void }).stop();
    throw new Error(
      `dev venue cannot listen on ${host}:${options.port ?? 0}: ${(e as Error).message}`,
    );
  }

  const timer =
    options.barIntervalMs && makers.length > 0
      ? setInterval(() => makers.forEach((m) => m.advance()), options.barIntervalMs)
      : null;

  const venue: DevVenue = {
    host,
    port,
    compId,
    controlUrl: null,
    binanceUrl: null,
    exchange,
    faults,
    setFaults(update) {
      return Object.assign(faults, update);
    },
    dropSessions() {
      const sessions = [...context.sessions];
      for (const s of sessions) s.drop("session dropped by the dev venue's fault switch");
      return sessions.length;
    },
    sessionCount: () => context.sessions.size,
    advanceLiquidity: () => makers.forEach((m) => m.advance()),
    async close() {
      if (timer) clearInterval(timer);
      if (control) await new Promise<void>((r) => control!.close(() => r()));
      await binance?.close();
      for (const s of [...context.sessions]) s.drop("dev venue closing");
      (listener as unknown as { stop(): void }).stop();
      await stopped;
    },
  };

  let control: Server | null = null;
  if (options.controlPort !== undefined && options.controlPort !== null) {
    control = await startControl(venue, host, options.controlPort);
    const address = control.address() as AddressInfo;
    (venue as { controlUrl: string | null }).controlUrl = `http://${host}:${address.port}`;
  }
  let binance: BinanceFacade | null = null;
  if (options.binance) {
    binance = await startBinanceFacade({
      exchange,
      faults,
      account: options.username,
      host,
      apiKey: options.binance.apiKey,
      apiSecret: options.binance.apiSecret,
      port: options.binance.port ?? 0,
      history: options.binance.history,
      onKlines: options.binance.onKlines,
    });
    (venue as { binanceUrl: string | null }).binanceUrl = binance.url;
  }
  return venue;
}

/**
 * The fault switches over HTTP, for a venue in another process: GET /faults, PUT /faults with
 * some switches as JSON, POST /sessions/drop.
 */
async function startControl(venue: DevVenue, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const route = `${req.method} ${(req.url ?? "").split("?")[0]}`;
    if (route === "GET /faults") return reply(200, venue.faults);
    if (route === "POST /sessions/drop") return reply(200, { dropped: venue.dropSessions() });
    if (route !== "PUT /faults")
      return reply(404, { error: "routes: GET /faults, PUT /faults, POST /sessions/drop" });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > 4096) {
        reply(413, { error: "a fault update is under 4 KiB" });
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => {
      if (res.headersSent) return;
      try {
        const update = parseFaultUpdate(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        reply(200, venue.setFaults(update));
      } catch (e) {
        reply(400, {
          error: e instanceof SyntaxError ? "the body is not JSON" : (e as Error).message,
        });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

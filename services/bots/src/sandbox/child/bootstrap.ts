/**
 * The child's main script, run by `node` inside bubblewrap. It owns the only I/O the sandbox
 * has (frames on stdin and stdout), makes the strategy realm (a fresh `vm` context with only
 * ECMAScript's built-ins and no code generation from strings), compiles the runtime and then the
 * strategy in it, and relays requests. It reads synchronously: no event loop turn ever runs, so
 * nothing a strategy schedules (a promise callback) ever runs either.
 */
import fs from "node:fs";
import vm from "node:vm";
import { FRAME_HEADER_BYTES, Kind, parseBlockPayload } from "../protocol.js";
import type { InitRequest } from "../types.js";
import { STRATEGY_FILE } from "./runtime.js";

type Realm = typeof import("./realm.js").realm;

const pause = new Int32Array(new SharedArrayBuffer(4));

function readFully(buf: Uint8Array): boolean {
  let got = 0;
  while (got < buf.byteLength) {
    let n: number;
    try {
      n = fs.readSync(0, buf, got, buf.byteLength - got, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
        Atomics.wait(pause, 0, 0, 1);
        continue;
      }
      throw error;
    }
    if (n === 0) return false;
    got += n;
  }
  return true;
}

function writeFully(bytes: Uint8Array): void {
  let put = 0;
  while (put < bytes.byteLength) {
    try {
      put += fs.writeSync(1, bytes, put, bytes.byteLength - put);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

function reply(json: string, kind: Kind = Kind.Answer): void {
  const body = Buffer.from(String(json), "utf8");
  const head = Buffer.alloc(FRAME_HEADER_BYTES);
  head.writeUInt32LE(body.byteLength, 0);
  head[4] = kind;
  writeFully(Buffer.concat([head, body]));
}

/**
 * A strategy that read the portfolio ahead of the host waits here, inside its call: the partial
 * answer goes out and the host's Resume comes back. Anything else means the host gave up on the
 * run (it stops or kills it): the process ends, the strategy's call never returns.
 */
function exchange(answer: string): string {
  reply(String(answer));
  const head = new Uint8Array(FRAME_HEADER_BYTES);
  if (!readFully(head)) process.exit(0);
  const length = new DataView(head.buffer).getUint32(0, true);
  const payload = new Uint8Array(length);
  if (!readFully(payload) || head[4] !== Kind.Resume) process.exit(0);
  return Buffer.from(payload).toString("utf8");
}

/**
 * A strategy's model call waits here, inside its call: the inputs go to the host, which runs the
 * model outside the sandbox and sends back its outputs. As with `exchange`, anything else means
 * the host gave up on the run.
 */
function modelCall(request: string): string {
  reply(String(request), Kind.ModelCall);
  const head = new Uint8Array(FRAME_HEADER_BYTES);
  if (!readFully(head)) process.exit(0);
  const length = new DataView(head.buffer).getUint32(0, true);
  const payload = new Uint8Array(length);
  if (!readFully(payload) || head[4] !== Kind.ModelResult) process.exit(0);
  return Buffer.from(payload).toString("utf8");
}

/** A kept log line goes out at once: a call killed by its limit never answers with it. */
function logLine(line: string): void {
  reply(String(line), Kind.Log);
}

function fail(message: string): string {
  return JSON.stringify({ fail: { code: "strategy_error", message } });
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Globals not bound as parameters: eval must stay direct-callable, and these three are constants. */
const UNBOUND = new Set(["eval", "undefined", "NaN", "Infinity"]);

/**
 * The realm's global names, to bind as the parameters of a script's wrapper: a global read in a
 * vm context goes through node's interceptors (about 0.3 us each, 40 times a plain read), a
 * parameter is a local.
 */
function globalNames(context: vm.Context): string[] {
  const names = vm.runInContext("Object.getOwnPropertyNames(globalThis)", context) as string[];
  return [...names].filter((n) => IDENTIFIER.test(n) && !UNBOUND.has(n));
}

/** Makes the strategy realm, compiles the runtime then the strategy in it, and runs init. */
function load(request: InitRequest): { realm?: Realm; answer: string } {
  const context = vm.createContext(Object.create(null) as object, {
    name: "strategy",
    codeGeneration: { strings: false, wasm: false },
  });
  const runtimeModule = vm.runInContext("({ exports: {} })", context) as {
    exports: { realm: Realm };
  };
  const names = globalNames(context);
  const runtimeFactory = new vm.Script(
    `(function (module, exports, ${names.join(", ")}) {"use strict";${request.runtime}\n})`,
    { filename: "runtime.js" },
  ).runInContext(context) as (...args: unknown[]) => void;
  const values = vm.runInContext(`[${names.join(", ")}]`, context) as unknown[];
  runtimeFactory(runtimeModule, runtimeModule.exports, ...values);
  const realm = runtimeModule.exports.realm;
  const config = JSON.stringify(request.config);
  realm.setup(config, exchange, modelCall, logLine);
  // After setup: the names the strategy binds are those left, with the values setup put there.
  const strategyNames = globalNames(context);
  let factory: Parameters<Realm["load"]>[0];
  try {
    // Line 1 of the bundle is line 1 of its stack frames: the wrapper's head has its own line.
    // The bundle runs in a function of its own inside the one binding the globals, so its own
    // top-level `const Map = ...` shadows the parameter instead of clashing with it.
    factory = new vm.Script(
      `(function (module, exports, ${strategyNames.join(", ")}) { return (function () {\n${request.strategy}\n})(); })`,
      { filename: STRATEGY_FILE, lineOffset: -1 },
    ).runInContext(context) as typeof factory;
  } catch (error) {
    return { answer: fail(`the strategy does not compile: ${String(error)}`.slice(0, 2_000)) };
  }
  return { realm, answer: realm.load(factory, config, JSON.stringify(strategyNames)) };
}

function main(): void {
  const head = new Uint8Array(FRAME_HEADER_BYTES);
  let blockBuffer = new ArrayBuffer(0);
  let realm: Realm | undefined;
  for (;;) {
    if (!readFully(head)) break;
    const length = new DataView(head.buffer).getUint32(0, true);
    const kind = head[4] as Kind;
    // A Block's bytes go to one buffer kept from block to block (the columns are read in place,
    // a view: a block of 65,536 bars is 3 MiB, and a fresh one per block kept the collector
    // busy); the runtime holds a block's columns only until the next Block replaces them. Any
    // other frame gets a fresh buffer.
    let payload: Uint8Array;
    if (kind === Kind.Block) {
      if (blockBuffer.byteLength < length) blockBuffer = new ArrayBuffer(length);
      payload = new Uint8Array(blockBuffer, 0, length);
    } else payload = new Uint8Array(length);
    if (!readFully(payload)) break;
    let out: unknown;
    if (kind === Kind.Init) {
      const request = JSON.parse(Buffer.from(payload).toString("utf8")) as InitRequest;
      const loaded = load(request);
      realm = loaded.realm;
      out = loaded.answer;
    } else if (!realm) out = fail("the sandbox got a request before init");
    else if (kind === Kind.Block) {
      const { meta, columns } = parseBlockPayload(payload);
      out = realm.decide(meta, columns);
    } else if (kind === Kind.Continue)
      out = realm.decide(Buffer.from(payload).toString("utf8"), undefined);
    else if (kind === Kind.Snapshot) out = realm.snapshot();
    else if (kind === Kind.Stop) {
      reply(String(realm.stop()));
      break;
    } else out = fail(`unknown request kind ${kind}`);
    // The realm answers strings; anything else means the strategy got at the runtime's answer.
    reply(
      typeof out === "string" ? out : fail("the strategy realm answered something other than JSON"),
    );
  }
}

main();
// Ends here, before node would drain the microtask queue: a promise callback the strategy left
// behind never runs, even at exit.
process.exit(0);

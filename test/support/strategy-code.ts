import { MA_CROSSOVER_EXAMPLE } from "@svc/strategy-sdk/check";
import { call } from "./test-platform.js";
import { eventually } from "./until.js";

/**
 * Creates a bot running the SDK's example code, once the platform's strategy checker has started
 * its thread: until then a check answers 429 strategy_check_busy (the thread's start, seconds on
 * a loaded machine, counts against a write's deadline), and nothing is written.
 */
export async function createCodeBot(
  url: string,
  name: string,
  headers: Record<string, string> = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<any> {
  const created = await eventually(
    "the strategy checker's thread starts and checks the example",
    () =>
      call(
        url,
        "POST",
        "/bots",
        {
          name,
          kind: "trading",
          strategy: { code: { files: [{ path: "strategy.ts", content: MA_CROSSOVER_EXAMPLE }] } },
        },
        headers,
      ),
    (r) => r.status !== 429,
    60_000,
  );
  if (created.status !== 201) throw new Error(`${created.status}: ${created.text}`);
  return created.body;
}

/**
 * Counts its bars in ctx.state and logs each (init logs the count it starts from: 0, or the
 * count restored when a session resumes); long for five bars, flat for five.
 */
export const COUNTER_STRATEGY = `import { defineStrategy } from "@svc/strategy-sdk";

export default defineStrategy({
  params: {},
  init(ctx) {
    ctx.log.info("init", { seen: Number(ctx.state.seen ?? 0) });
  },
  onBar(ctx) {
    const seen = Number(ctx.state.seen ?? 0) + 1;
    ctx.state.seen = seen;
    ctx.log.info("bar", { seen });
    for (const symbol of ctx.symbols)
      ctx.target(symbol, { weight: Math.floor(seen / 5) % 2 === 0 ? 1 : 0 });
  },
});
`;

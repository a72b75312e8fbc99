import { ConnectError } from "@connectrpc/connect";
import { afterEach, describe, expect, it } from "vitest";
import { MA_CROSSOVER_EXAMPLE } from "@svc/strategy-sdk/check";
import { errorDetailOf } from "@svc/lib/errors";
import { createStrategyChecker, type StrategyChecker } from "./strategy-checker.js";

/** 10,000 template-literal keys crossed with themselves: the compiler runs for minutes. */
const TYPE_BOMB = `type D = "0"|"1"|"2"|"3"|"4"|"5"|"6"|"7"|"8"|"9";
type S = \`\${D}\${D}\${D}\${D}\`;
type M<T extends string> = { [K in T]: { [J in T]: K } };
type X = M<S>[S][S];
const x: X = "1";
export default x;
`;

const good = [{ path: "strategy.ts", content: MA_CROSSOVER_EXAMPLE }];
const bomb = [{ path: "strategy.ts", content: TYPE_BOMB }];

async function refusal(p: Promise<unknown>): Promise<{ code: string; details: unknown }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ConnectError)) throw new Error(`expected a refusal, got ${String(err)}`);
  return errorDetailOf(err);
}

// Waits are long on purpose: a thread's start (the compiler loaded through tsx) is seconds on a
// loaded 2-core machine, and only a check's own time is under test.
const patient = { timeoutMs: 3_000, maxWaitMs: 60_000, memoryMb: 2048 };

describe("the strategy checker's thread", () => {
  let checker: StrategyChecker | undefined;
  afterEach(async () => {
    await checker?.close();
  });

  it("ends a type-level bomb at its deadline with a 400 saying so, then checks the next file", async () => {
    checker = createStrategyChecker(patient);
    expect(await refusal(checker.check(bomb))).toMatchObject({
      code: "strategy_check_timeout",
      details: { field: "strategy.code", timeout_ms: 3_000 },
    });
    // The ended thread was replaced, not left dead.
    const next = await checker.check(good);
    expect(next.ok).toBe(true);
  }, 120_000);

  it("refuses at once past its queue, without waiting", async () => {
    checker = createStrategyChecker({ ...patient, maxQueued: 1 });
    // A started thread: the bomb runs at once, and only the good file waits.
    await checker.warm();
    const running = refusal(checker.check(bomb));
    const queued = checker.check(good);
    expect(await refusal(checker.check(good))).toMatchObject({ code: "strategy_check_busy" });
    expect((await running).code).toBe("strategy_check_timeout");
    expect((await queued).ok).toBe(true);
  }, 120_000);

  it("refuses a caller it cannot serve within its wait, and forgets it", async () => {
    checker = createStrategyChecker({ ...patient, maxWaitMs: 1_000 });
    await checker.warm();
    const running = refusal(checker.check(bomb));
    expect(await refusal(checker.check(good))).toMatchObject({ code: "strategy_check_busy" });
    expect((await running).code).toBe("strategy_check_timeout");
  }, 120_000);
});

import { loadavg } from "node:os";
import autocannon from "autocannon";
import { startMembershipServer, type LookupMode } from "./membership-server-client.js";

export interface MembershipSettings {
  seconds: number;
  connections: number;
  rounds: number;
  /** Requests of each phase in which every request is a person never seen before. */
  freshPerPhase: number;
  databaseUrl?: string;
}

interface Phase {
  name: string;
  route: "bot" | "whoami";
  mode: LookupMode;
  people: "warm" | "fresh";
}

// (c) and (c') are the references: the same route and tokens with the membership check replaced
// by one that admits everyone; the rest of the request path is the same process and code.
const PHASES: Phase[] = [
  { name: "c_reference_warm_tokens", route: "bot", mode: "off", people: "warm" },
  { name: "a_enforced_cached", route: "bot", mode: "shipped", people: "warm" },
  { name: "b_enforced_cold_membership", route: "bot", mode: "uncached", people: "warm" },
  { name: "c2_reference_new_people", route: "bot", mode: "off", people: "fresh" },
  { name: "b2_enforced_cold_new_people", route: "bot", mode: "shipped", people: "fresh" },
  { name: "c_reference_warm_tokens", route: "whoami", mode: "off", people: "warm" },
  { name: "a_enforced_cached", route: "whoami", mode: "shipped", people: "warm" },
  { name: "b_enforced_cold_membership", route: "whoami", mode: "uncached", people: "warm" },
];

interface Sample {
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  load_average_1m: number;
}

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Authenticated requests per second through the gateway with SVC_AUTH_ENFORCE=strict, the
 * membership lookup switched between phases of one platform process, rounds alternated.
 */
export async function membershipFigures(s: MembershipSettings) {
  const server = await startMembershipServer([
    "--fresh-people",
    String(s.freshPerPhase * 2 * s.rounds + 200),
    ...(s.databaseUrl ? ["--database-url", s.databaseUrl] : []),
  ]);
  const { gateway, botRef, warmTokens, freshTokens } = server.info;
  let nextFresh = 0;
  let freshReused = 0;
  const paths = { bot: `/bots/${botRef}`, whoami: "/auth/whoami" };

  async function load(p: Phase, opts: { duration?: number; amount?: number }): Promise<Sample> {
    await server.use(p.mode);
    let nextWarm = 0;
    const token = () => {
      if (p.people === "warm") return warmTokens[nextWarm++ % warmTokens.length]!;
      // The last 200 people are the child's, for timeColdSteps.
      if (nextFresh < freshTokens.length - 200) return freshTokens[nextFresh++]!;
      freshReused++; // autocannon may send a few more than `amount`; reported, not hidden
      return freshTokens[nextFresh - 1]!;
    };
    // autocannon ends an `amount` run on its next one-second tick, so its own duration would cap
    // the rate at amount / whole seconds: the span from the first request to the last answer is
    // timed here instead, the same way for every phase.
    let first = 0;
    let last = 0;
    let answered = 0;
    const r = await autocannon({
      url: gateway,
      connections: s.connections,
      ...opts,
      requests: [
        {
          method: "GET",
          path: paths[p.route],
          setupRequest: (req) => {
            first ||= performance.now();
            return { ...req, headers: { ...req.headers, authorization: `Bearer ${token()}` } };
          },
          onResponse: () => {
            last = performance.now();
            answered++;
          },
        },
      ],
    });
    if (r.non2xx > 0 || r.errors > 0)
      throw new Error(`${p.route} ${p.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return {
      requests_per_s: round(answered / ((last - first) / 1000)),
      p50_ms: r.latency.p50,
      p99_ms: r.latency.p99,
      requests: answered,
      load_average_1m: round(loadavg()[0]!, 2),
    };
  }

  const samples = new Map<string, Sample[]>();
  let coldSteps: Awaited<ReturnType<typeof server.timeColdSteps>>;
  try {
    // Warm-up of every route and lookup, not counted.
    for (const p of PHASES.filter((p) => p.people === "warm")) await load(p, { duration: 1 });
    for (let r = 0; r < s.rounds; r++)
      for (const p of PHASES) {
        const key = `${p.route}/${p.name}`;
        const sample = await load(
          p,
          p.people === "fresh" ? { amount: s.freshPerPhase } : { duration: s.seconds },
        );
        samples.set(key, [...(samples.get(key) ?? []), sample]);
      }
    coldSteps = await server.timeColdSteps();
  } finally {
    await server.stop();
  }

  const summary = (key: string) => {
    const xs = samples.get(key)!;
    return {
      requests_per_s: round(median(xs.map((x) => x.requests_per_s))),
      p50_ms: round(median(xs.map((x) => x.p50_ms))),
      p99_ms: round(median(xs.map((x) => x.p99_ms))),
      rounds: xs,
    };
  };
  const figures = (route: string, names: string[]) =>
    Object.fromEntries(names.map((n) => [n, summary(`${route}/${n}`)]));
  const bot = figures("bot", [
    "a_enforced_cached",
    "b_enforced_cold_membership",
    "b2_enforced_cold_new_people",
    "c_reference_warm_tokens",
    "c2_reference_new_people",
  ]);
  const whoami = figures("whoami", [
    "a_enforced_cached",
    "b_enforced_cold_membership",
    "c_reference_warm_tokens",
  ]);
  // Each round's phases ran seconds apart, so a ratio within a round sees the least drift in the
  // machine's load; the median over rounds is the figure.
  const ratio = (route: string, x: string, y: string) => {
    const xs = samples.get(`${route}/${x}`)!;
    const ys = samples.get(`${route}/${y}`)!;
    const perRound = xs.map((a, i) => round(a.requests_per_s / ys[i]!.requests_per_s, 3));
    return { median: round(median(perRound), 3), per_round: perRound };
  };
  return {
    storage: server.info.storage,
    fresh_tokens_reused: freshReused,
    cold_path_steps: {
      ...coldSteps,
      what: "one at a time in the platform process, no HTTP, 200 people no phase used: the membership count the lookup asks the store for (users join memberships by subject), and a token verification the verified-token cache has not seen",
    },
    [`GET /bots/${botRef}`]: {
      ...bot,
      throughput_ratios: {
        a_over_c: ratio("bot", "a_enforced_cached", "c_reference_warm_tokens"),
        b_over_c: ratio("bot", "b_enforced_cold_membership", "c_reference_warm_tokens"),
        b2_over_c2: ratio("bot", "b2_enforced_cold_new_people", "c2_reference_new_people"),
      },
    },
    "GET /auth/whoami": {
      ...whoami,
      throughput_ratios: {
        a_over_c: ratio("whoami", "a_enforced_cached", "c_reference_warm_tokens"),
        b_over_c: ratio("whoami", "b_enforced_cold_membership", "c_reference_warm_tokens"),
      },
    },
  };
}

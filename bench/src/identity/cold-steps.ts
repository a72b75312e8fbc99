import { createTokenVerifier, type AuthSettings } from "@svc/lib/auth";

const quantiles = (us: number[]) => {
  const s = [...us].sort((a, b) => a - b);
  const q = (p: number) => Math.round(s[Math.floor(p * (s.length - 1))]!);
  return { n: s.length, p50_us: q(0.5), p99_us: q(0.99) };
};

async function timed<T>(items: T[], step: (item: T) => Promise<unknown>) {
  const us: number[] = [];
  for (const item of items) {
    const t0 = performance.now();
    await step(item);
    us.push((performance.now() - t0) * 1000);
  }
  return quantiles(us);
}

/**
 * The two steps a person's first request pays that a repeat one does not, one at a time and
 * without HTTP, in the platform process: counting their membership rows in the store, and
 * verifying a token the verified-token cache has not seen (RS256 against the cached JWKS).
 */
export async function timeColdSteps(opts: {
  countOf: (subject: string) => Promise<number>;
  auth: AuthSettings;
  people: Array<{ subject: string; token: string }>;
}) {
  const verifier = createTokenVerifier({ ...opts.auth, tokenCacheSize: 0 });
  // Fetches the JWKS and warms the code paths; not timed.
  for (const p of opts.people.slice(0, 20)) {
    await opts.countOf(p.subject);
    await verifier.verify(p.token, "user");
  }
  return {
    membership_count: await timed(opts.people, (p) => opts.countOf(p.subject)),
    token_verification_uncached: await timed(opts.people, (p) => verifier.verify(p.token, "user")),
  };
}

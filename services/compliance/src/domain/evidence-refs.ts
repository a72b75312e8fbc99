import type { CaseEntry, DrillEntry, RunEntry } from "./report-types.js";

/** How an article points at what it rests on: a path into the report's `evidence` section. */
export const ref = {
  bot: (slug: string) => `bot_inventory/${slug}`,
  conformance: (run: RunEntry) => `conformance_results/${run.id}`,
  conformanceCase: (run: RunEntry, c: CaseEntry) => `conformance_results/${run.id}/cases/${c.name}`,
  stress: (run: RunEntry) => `stress_results/${run.id}`,
  drill: (d: DrillEntry) => `kill_switch_drills/${d.id}`,
};

/**
 * Whether a case's article (e.g. "RTS 6 Art. 15(1)(c); SEC 15c3-5 (c)(1)(ii)") cites `provision`.
 * A provision ending in ")" must match whole, so "(c)(1)(i)" never matches "(c)(1)(ii)"; one
 * ending in "(" matches every sub-point ("RTS 6 Art. 15(" but not "Art. 150").
 */
export function cites(article: string, provision: string): boolean {
  return article
    .split(";")
    .map((part) => part.trim())
    .some((part) =>
      provision.endsWith("(")
        ? part.startsWith(provision)
        : part === provision || part.startsWith(`${provision},`),
    );
}

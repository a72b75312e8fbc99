/** Slugs that collide with static routes under /bots and can never name a bot. */
export const RESERVED_SLUGS = new Set(["halt-all"]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A bot_ref is an id when it looks like a UUID, otherwise a slug. */
export function isUuid(ref: string): boolean {
  return UUID.test(ref);
}

/** URL-friendly slug from a human name: "Alpha MA (fast)" -> "alpha-ma-fast". */
export function slugFromName(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63)
    .replace(/-+$/g, "");
  return slug || "bot";
}

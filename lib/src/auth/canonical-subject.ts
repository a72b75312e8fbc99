/** Format characters (Unicode category Cf): zero-width space and joiners, word joiner, BOM, soft hyphen... */
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/**
 * The form in which two subjects are compared to decide whether they are one person. Providers
 * and account systems differ in case handling, and invisible or compatibility characters
 * ("user|alice\u200b", full-width "ａｌｉｃｅ") render like the plain name: compared byte for byte,
 * one person could pass for two and approve their own request. NFKC folds compatibility forms,
 * format characters are dropped, surrounding white space trimmed, and case folded. Use it for
 * comparisons only; store and show the subject as the token gave it.
 *
 * @example canonicalSubject(" User|Ａlice\u200b") === canonicalSubject("user|alice") // true
 */
export function canonicalSubject(sub: string): string {
  return sub.normalize("NFKC").replace(FORMAT_CHARACTERS, "").trim().toLowerCase();
}

/**
 * True when both subjects name the same person under canonicalSubject.
 *
 * @example sameSubject("user|alice", "user|Alice ") // true
 */
export function sameSubject(a: string, b: string): boolean {
  return canonicalSubject(a) === canonicalSubject(b);
}

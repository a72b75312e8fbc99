import { createRequire } from "node:module";

/**
 * confusables.txt as a map from each source character to its prototype (unhomoglyph's data),
 * read at the first comparison rather than at every import of lib/auth: it is 6,000 entries.
 */
let prototypes: Map<string, string> | undefined;
function prototypeOf(ch: string): string {
  prototypes ??= new Map(
    Object.entries(
      createRequire(import.meta.url)("unhomoglyph/data.json") as Record<string, string>,
    ),
  );
  return prototypes.get(ch) ?? ch;
}

/**
 * What renders as nothing. Default_Ignorable_Code_Point covers the format characters, variation
 * selectors (U+FE0F) and, in the Unicode of Node 20 and later, the Hangul fillers (U+115F,
 * U+1160, U+3164, U+FFA0). They are named again so an older Unicode table cannot let them back
 * in, with U+2800 (Braille pattern blank), which renders as a blank yet is in no such class.
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\u115f\u1160\u3164\uffa0\u2800]/gu;
/** Combining marks, dropped after decomposition: a dot above the i of Turkish İ reads as i. */
const MARKS = /\p{M}/gu;
/** A trailing dot (as in a fully-qualified name) or blank does not make another account. */
const TRAILING = /[.\p{White_Space}]+$/u;

/** NFKC, then without the characters that render as nothing, trimmed. */
function visible(sub: string): string {
  return sub.normalize("NFKC").replace(INVISIBLE, "").trim();
}

/** UTS #39 skeleton (NFD, each character to its prototype, NFD), less marks and trailing dots. */
function skeleton(s: string): string {
  let mapped = "";
  for (const ch of s.normalize("NFD")) mapped += prototypeOf(ch);
  return mapped.normalize("NFD").replace(MARKS, "").replace(TRAILING, "");
}

/**
 * The form in which two subjects are compared to decide whether they are one person, ignoring
 * case: the UTS #39 confusable skeleton of the visible, lower-cased subject. Providers and
 * account systems differ in case handling, and invisible characters ("user|alice\u200b",
 * "user|alice\ufe0f", "user|alice\u3164"), compatibility forms (full-width "ａｌｉｃｅ") and
 * look-alikes NFKC keeps apart (Cyrillic а, Greek Α, dotless ı, Turkish İ, a trailing dot)
 * render like the plain name: compared as strings, one person could pass for two and approve
 * their own request. The form is not meant to be read (m becomes "rn", 0 becomes "o"); store
 * and show the subject as the token gave it.
 *
 * @example canonicalSubject(" User|Ａlice\u200b") === canonicalSubject("user|аlice.") // true
 */
export function canonicalSubject(sub: string): string {
  return skeleton(skeleton(visible(sub).toLowerCase()).toLowerCase());
}

/**
 * True when both subjects may name the same person: equal canonical forms, or equal skeletons
 * before case folding, since confusables.txt maps capital I to l (so "user|aIice" reads as
 * "user|alice") while lower-casing would make it an i. A false "same" only asks for another
 * approver; a false "different" lets one person approve their own request. So use it to refuse
 * (four eyes), never to grant: "user|b0b" is not let into what "user|bob" may read.
 *
 * @example sameSubject("user|alice", "user|Alice ") // true
 */
export function sameSubject(a: string, b: string): boolean {
  return (
    canonicalSubject(a) === canonicalSubject(b) || skeleton(visible(a)) === skeleton(visible(b))
  );
}

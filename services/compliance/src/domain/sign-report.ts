import type { StoredSignature } from "../store/compliance.table.js";
import { ATTESTATION_SLOTS, type AttestationSlot, type ValidationReport } from "./report-types.js";

/** How long a signed report is kept at least: the spec asks for seven years. */
export const RETENTION_YEARS = 7;

/** The first instant a report signed at `signedAt` may be deleted. */
export function retainUntil(signedAt: Date): Date {
  const d = new Date(signedAt);
  d.setUTCFullYear(d.getUTCFullYear() + RETENTION_YEARS);
  return d;
}

export const isSlot = (s: string): s is AttestationSlot =>
  (ATTESTATION_SLOTS as readonly string[]).includes(s);

/** Signatures in the report's slot order, so the same signatures give the same bytes. */
export function inSlotOrder(signatures: StoredSignature[]): StoredSignature[] {
  const at = (s: StoredSignature) => ATTESTATION_SLOTS.indexOf(s.slot as AttestationSlot);
  return [...signatures].sort((a, b) => at(a) - at(b));
}

/** The report with the signed slots filled (who, when, what they attest); the rest stay null. */
export function signedCopy(
  report: ValidationReport,
  signatures: StoredSignature[],
): ValidationReport {
  const attestations = { ...report.attestations };
  for (const s of signatures) {
    if (!isSlot(s.slot)) continue;
    attestations[s.slot] = {
      ...attestations[s.slot],
      signed_by: s.signed_by,
      signed_at: s.signed_at,
      statement: s.statement,
    };
  }
  return { ...report, attestations };
}

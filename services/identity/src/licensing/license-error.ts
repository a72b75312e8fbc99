/** The machine codes licensing answers with (all listed in lib's ERROR_CODES). */
export type LicenseErrorCode =
  | "invalid_argument"
  | "license_lease_unavailable"
  | "license_revoked"
  | "license_invalid"
  | "license_deployment_not_found"
  | "device_credential_invalid"
  | "renewal_replayed";

/** A licensing refusal with a message a person can act on; the handler maps the code to a status. */
export class LicenseError extends Error {
  constructor(
    readonly code: LicenseErrorCode,
    message: string,
    readonly details: Record<string, string | number> = {},
  ) {
    super(message);
    this.name = "LicenseError";
  }
}

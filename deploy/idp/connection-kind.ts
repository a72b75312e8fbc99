/**
 * The connection_kind the platform's group sync takes, derived from the login's connection
 * strategy and name (the spec's rule). The mapping is configuration: a deployment passes its
 * own rules as the action's `CONNECTION_KINDS` secret (JSON, see deploy/idp/README.md); without
 * it the rules below apply. A connection no rule names is not one whose groups the platform
 * maps, and the hook makes no group call for it.
 *
 * @example connectionKindOf({ name: "acme-okta", strategy: "okta" }) // "idp_vendor_1"
 */

/** The kinds the platform's sync route takes (spec: connection_kind allowed values). */
export const CONNECTION_KINDS = [
  "directory_service",
  "workspace_suite",
  "cloud_sso",
  "idp_vendor_1",
  "idp_vendor_2",
  "idp_vendor_3",
  "generic_saml",
  "generic_oidc",
] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

/**
 * One rule: a connection matches when its strategy is one of `strategies` (any, when absent)
 * and its name starts with one of `namePrefixes` (any, when absent), both case-insensitive.
 * Rules are tried in order; the first match names the kind.
 */
export interface ConnectionKindRule {
  kind: ConnectionKind;
  strategies?: string[];
  namePrefixes?: string[];
}

/**
 * The provider's enterprise connection strategies, mapped to the spec's kinds. The vendor
 * slots follow the provider's own connection types; a SAML or OIDC connection to a vendor the
 * provider has no type for is told apart by its name (a deployment names its connections).
 */
export const DEFAULT_CONNECTION_KIND_RULES: readonly ConnectionKindRule[] = [
  { kind: "directory_service", strategies: ["ad", "adfs", "ldap"] },
  { kind: "workspace_suite", strategies: ["google-apps", "office365"] },
  { kind: "cloud_sso", strategies: ["waad"] },
  { kind: "idp_vendor_1", strategies: ["okta"] },
  { kind: "idp_vendor_2", strategies: ["pingfederate"] },
  { kind: "idp_vendor_3", strategies: ["samlp", "oidc"], namePrefixes: ["onelogin"] },
  { kind: "generic_saml", strategies: ["samlp"] },
  { kind: "generic_oidc", strategies: ["oidc"] },
];

export function connectionKindOf(
  connection: { strategy?: string; name?: string },
  rules: readonly ConnectionKindRule[] = DEFAULT_CONNECTION_KIND_RULES,
): ConnectionKind | null {
  const strategy = (connection.strategy ?? "").toLowerCase();
  const name = (connection.name ?? "").toLowerCase();
  for (const rule of rules) {
    if (rule.strategies && !rule.strategies.some((s) => s.toLowerCase() === strategy)) continue;
    if (rule.namePrefixes && !rule.namePrefixes.some((p) => name.startsWith(p.toLowerCase())))
      continue;
    return rule.kind;
  }
  return null;
}

/**
 * The rules of the `CONNECTION_KINDS` secret. A secret that is not a list of rules naming known
 * kinds throws: the hook fails open (the login goes on without a group sync) and logs why, rather
 * than syncing groups under a kind nobody configured.
 */
export function connectionKindRules(secret: string | undefined): readonly ConnectionKindRule[] {
  if (secret === undefined || secret.trim() === "") return DEFAULT_CONNECTION_KIND_RULES;
  const parsed: unknown = JSON.parse(secret);
  if (!Array.isArray(parsed)) throw new Error("CONNECTION_KINDS must be a JSON array of rules");
  return parsed.map((r: unknown, i) => {
    const rule = r as Partial<ConnectionKindRule> | null;
    if (!rule || !CONNECTION_KINDS.includes(rule.kind as ConnectionKind))
      throw new Error(`CONNECTION_KINDS[${i}].kind must be one of ${CONNECTION_KINDS.join(", ")}`);
    for (const key of ["strategies", "namePrefixes"] as const) {
      const list = rule[key];
      if (list !== undefined && !(Array.isArray(list) && list.every((s) => typeof s === "string")))
        throw new Error(`CONNECTION_KINDS[${i}].${key} must be a list of strings`);
    }
    return rule as ConnectionKindRule;
  });
}

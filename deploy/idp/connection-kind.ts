/**
 * The connection_kind the platform's group sync takes, from the login's connection: a SAML
 * connection is generic_saml, an OIDC one generic_oidc; any other connection is not one whose
 * groups the platform maps, and the hook makes no group call for it.
 *
 * @example connectionKindOf({ name: "acme-okta", strategy: "oidc" }) // "generic_oidc"
 */
export function connectionKindOf(connection: { strategy?: string; name?: string }): string | null {
  switch (connection.strategy) {
    case "samlp":
      return "generic_saml";
    case "oidc":
      return "generic_oidc";
    default:
      return null;
  }
}

/** What a user record may hold groups in: a list, one name, or nothing. */
type GroupField = unknown;

/** The user record as the provider hands it to a post-login action (the fields groups come from). */
export interface LoginUser {
  user_id: string;
  email?: string;
  groups?: GroupField;
  app_metadata?: { groups?: GroupField; [k: string]: unknown };
  user_metadata?: { groups?: GroupField; [k: string]: unknown };
  identities?: Array<{
    connection?: string;
    provider?: string;
    profileData?: { groups?: GroupField };
  }>;
  multifactor?: string[];
  [attribute: string]: unknown;
}

/**
 * Every external group the user is in, from every place the spec lists: the standard groups, the
 * app and user metadata, a role-claim attribute (named by the deployment), and the first
 * identity's profile; trimmed, empty ones dropped, duplicates removed, in first-seen order.
 *
 * @example externalGroups({ user_id: "u", groups: [" a ", "b"], app_metadata: { groups: "a" } }) // ["a", "b"]
 */
export function externalGroups(user: LoginUser, roleClaimAttribute?: string): string[] {
  const sources: GroupField[] = [
    user.groups,
    user.app_metadata?.groups,
    user.user_metadata?.groups,
    roleClaimAttribute ? user[roleClaimAttribute] : undefined,
    user.identities?.[0]?.profileData?.groups,
  ];
  const names = sources.flatMap((s) => (Array.isArray(s) ? s : s === undefined ? [] : [s]));
  return [
    ...new Set(
      names
        .filter((n): n is string => typeof n === "string")
        .map((n) => n.trim())
        .filter(Boolean),
    ),
  ];
}

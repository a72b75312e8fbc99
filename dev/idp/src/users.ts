import { randomBytes } from "node:crypto";
import { generateSecret } from "otplib";

/** A person who can sign in at the development provider. */
export interface DevUser {
  /** The provider's subject for this person (the `sub` of their tokens). */
  sub: string;
  /** What they type at the login form. */
  username: string;
  password: string;
  /** Base32 TOTP secret of their authenticator app: their second factor. */
  totpSecret: string;
  email: string;
  /** The API permissions the provider adds to their access tokens (its RBAC). */
  permissions: string[];
  /** Their organization at the provider, sent to the post-login sync. */
  organization?: { id: string; name: string };
  /** Groups from their directory, which the post-login action syncs into memberships. */
  groups?: string[];
  /** The provider's connection they sign in through. */
  connection?: { name: string; strategy: string };
}

/** What a person may do on the platform, in the vocabulary of the proto's route policies. */
const TRADER_PERMISSIONS = [
  "read:bots",
  "write:bots",
  "run:bots",
  "deploy:bots",
  "halt:bots",
  "chat:bots",
  "read:promotion",
  "submit:promotion",
  "approve:promotion",
  "read:killswitch",
  "read:compliance",
  "run:compliance",
  "read:mcp:data",
];

const ADMIN_PERMISSIONS = [
  ...TRADER_PERMISSIONS,
  "halt:platform",
  "admin:platform",
  "admin:tenant",
  "read:audit",
  "issue:license",
  "admin:license",
  "read:credentials",
  "write:credentials",
  "sign:compliance",
  "admin:compliance",
];

/**
 * A person with a password and a TOTP secret made now (none sits in the repository), a member of
 * the development org, signing in through an OIDC connection; `extra` overrides any of it.
 *
 * @example devUser("carol", ["read:bots"], { groups: ["traders"] })
 */
export function devUser(
  username: string,
  permissions: string[],
  extra: Partial<DevUser> = {},
): DevUser {
  return {
    sub: `dev|${username}`,
    username,
    password: randomBytes(9).toString("base64url"),
    totpSecret: generateSecret(),
    email: `${username}@svc.dev`,
    permissions,
    organization: { id: "org_dev", name: "Dev Org" },
    connection: { name: "dev-oidc", strategy: "oidc" },
    groups: [],
    ...extra,
  };
}

/**
 * The three people of the development provider: alice and bob trade (two people, so four eyes can
 * be tried), admin also administers tenants, audit and licenses. The provider prints their
 * passwords and TOTP secrets; `given` sets them instead.
 */
export function defaultUsers(given: Partial<Record<string, Partial<DevUser>>> = {}): DevUser[] {
  return [
    devUser("alice", TRADER_PERMISSIONS, given.alice),
    devUser("bob", TRADER_PERMISSIONS, given.bob),
    devUser("admin", ADMIN_PERMISSIONS, given.admin),
  ];
}

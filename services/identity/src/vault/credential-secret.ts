import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  CredentialKind,
  CredentialSecretSchema,
  type CredentialSecret,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { invalidField } from "@svc/lib/errors";

type SecretCase = NonNullable<CredentialSecret["secret"]["case"]>;

const KIND_OF_CASE: Record<SecretCase, CredentialKind> = {
  brokerFix: CredentialKind.BROKER_FIX,
  exchangeApi: CredentialKind.EXCHANGE_API,
  modelApiKey: CredentialKind.MODEL_API_KEY,
  oauthClient: CredentialKind.OAUTH_CLIENT,
};

const FIELD_OF_CASE: Record<SecretCase, string> = {
  brokerFix: "broker_fix",
  exchangeApi: "exchange_api",
  modelApiKey: "model_api_key",
  oauthClient: "oauth_client",
};

/** broker_fix, exchange_api...: the stored and audited spelling of a kind. */
export function kindName(kind: CredentialKind): string {
  return CredentialKind[kind]!.toLowerCase();
}

export function kindOfName(name: string): CredentialKind {
  return CredentialKind[name.toUpperCase() as keyof typeof CredentialKind] as CredentialKind;
}

/** Broker credentials: their mutations need step-up MFA (spec, Authentication 6). */
export function isBrokerKind(kind: CredentialKind): boolean {
  return kind === CredentialKind.BROKER_FIX || kind === CredentialKind.EXCHANGE_API;
}

// C0 controls and DEL, but tab, line feed and carriage return, which a PEM private key holds.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * The secret's kind, after refusing what no logon or key contains: a NUL byte or another control
 * character would be cut or misread by the venue's side (a FIX field ends at SOH).
 */
export function checkedSecret(secret: CredentialSecret | undefined, at: string): CredentialKind {
  const c = secret?.secret;
  if (!c?.case)
    throw invalidField(
      at,
      `${at} must hold exactly one of ${Object.values(FIELD_OF_CASE).join(", ")}`,
    );
  for (const [field, value] of Object.entries(c.value)) {
    if (!field.startsWith("$") && typeof value === "string" && CONTROL.test(value))
      throw invalidField(
        `${at}.${FIELD_OF_CASE[c.case]}.${snake(field)}`,
        `${at}.${FIELD_OF_CASE[c.case]}.${snake(field)} holds a control character (a NUL byte or the like), which no credential contains`,
      );
  }
  return KIND_OF_CASE[c.case];
}

/** The bytes that are sealed: the secret's protobuf encoding. */
export function secretBytes(secret: CredentialSecret): Buffer {
  return Buffer.from(toBinary(CredentialSecretSchema, create(CredentialSecretSchema, secret)));
}

export function secretFromBytes(bytes: Buffer): CredentialSecret {
  return fromBinary(CredentialSecretSchema, bytes);
}

function snake(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

import { randomUUID } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import type { Kysely, Transaction } from "kysely";
import type { Logger } from "@svc/lib/telemetry";
import { DEFAULT_GRACE_SECONDS, leaseWindow, LeaseTermsError } from "../domain/lease-terms.js";
import {
  canonicalBytes,
  fromBase64Url,
  leaseTime,
  LEASE_FORMAT,
  parseRenewal,
  renewalSignedBy,
  RENEWAL_SKEW_SECONDS,
  signLease,
  type LeasePayload,
  type LeasePublicKey,
  type LeaseSigningKey,
} from "../lease/index.js";
import { auditActorOf, currentTraceId } from "@svc/lib/audit";
import type { Principal } from "@svc/lib/auth";
import { appendAuditEvent } from "../store/audit-trail.repository.js";
import type { DeploymentRow, IdentityDatabase, LeaseRow } from "../store/identity.table.js";
import * as repo from "../store/license.repository.js";
import { LicenseError } from "./license-error.js";
import type { SigningKeys } from "./signing-keys.js";

/** Largest entitlements object a lease carries, in canonical bytes. */
export const MAX_ENTITLEMENTS_BYTES = 16 * 1024;

export interface LeaseRegistryDeps {
  db: Kysely<IdentityDatabase>;
  keys: SigningKeys;
  /** SVC_LICENSE_REGISTRY_ENFORCED: a revocation denies renewals. */
  registryEnforced: boolean;
  now: () => number;
  log: Logger;
}

/** A freshly signed lease: the JSON text is shown once and kept nowhere. */
export interface IssuedLease {
  text: string;
  payload: LeasePayload;
}

export interface IssueInput {
  deploymentId: string;
  entitlements: JsonObject;
  ttlSeconds: number;
  customerId: string | null;
  devicePublicKey: string | null;
  contractEndsAtMs: number | undefined;
  issuedBy: string;
}

export interface RevokeInput {
  deploymentId: string;
  reason: string;
  /** Who revokes, and which request: the audit row names them. */
  origin: { principal: Principal; requestId?: string };
}

/**
 * The issuer's side of licensing: issues, renews and revokes leases against the registry. Every
 * change runs in one transaction that also takes the deployment's serial, so two concurrent
 * issues never share one and a failed signature leaves no row behind.
 */
export function createLeaseRegistry(deps: LeaseRegistryDeps) {
  const { db, keys, log } = deps;

  function signingKey(): LeaseSigningKey {
    if (!keys.on)
      throw new LicenseError(
        "license_lease_unavailable",
        `licensing is off on this identity service: ${keys.why}`,
      );
    return keys.active;
  }

  async function signAndRecord(
    trx: Transaction<IdentityDatabase>,
    key: LeaseSigningKey,
    d: DeploymentRow,
    opts: { requestedTtl: number; issuedBy: string; renewalOf: string | null },
  ): Promise<IssuedLease> {
    const window = windowFor(d, opts.requestedTtl, deps.now());
    const payload: LeasePayload = {
      format: LEASE_FORMAT,
      lease_id: randomUUID(),
      deployment_id: d.deployment_id,
      ...(d.customer_id ? { customer_id: d.customer_id } : {}),
      entitlements: d.entitlements,
      serial: d.last_serial,
      issued_at: leaseTime(window.issuedAtMs),
      expires_at: leaseTime(window.expiresAtMs),
      ttl_seconds: window.ttlSeconds,
      grace_period_seconds: d.grace_period_seconds,
      public_key_id: key.publicKeyId,
    };
    await repo.insertLease(trx, {
      leaseId: payload.lease_id,
      deploymentId: d.deployment_id,
      serial: payload.serial,
      publicKeyId: key.publicKeyId,
      customerId: d.customer_id,
      entitlements: d.entitlements,
      issuedAt: new Date(window.issuedAtMs),
      expiresAt: new Date(window.expiresAtMs),
      gracePeriodSeconds: d.grace_period_seconds,
      issuedBy: opts.issuedBy,
      renewalOf: opts.renewalOf,
    });
    const signed = await signLease(payload, key);
    return { text: JSON.stringify(signed), payload };
  }

  return {
    /** A lease for a deployment, on the terms the issuer states (which later renewals reuse). */
    async issue(input: IssueInput): Promise<IssuedLease> {
      const key = signingKey();
      if (canonicalBytes(input.entitlements).length > MAX_ENTITLEMENTS_BYTES)
        throw new LicenseError(
          "invalid_argument",
          `entitlements take more than ${MAX_ENTITLEMENTS_BYTES} bytes; a lease carries resolved entitlements, not documents`,
          { field: "entitlements" },
        );
      if (input.devicePublicKey && fromBase64Url(input.devicePublicKey)?.length !== 32)
        throw new LicenseError(
          "invalid_argument",
          "device_public_key must be a raw 32-byte Ed25519 key in base64url (as svc-license-daemon init prints it)",
          { field: "device_public_key" },
        );
      if (input.contractEndsAtMs !== undefined && input.contractEndsAtMs <= deps.now())
        throw new LicenseError(
          "invalid_argument",
          `contract_ends_at ${new Date(input.contractEndsAtMs).toISOString()} is in the past; a lease needs a contract that runs on`,
          { field: "contract_ends_at" },
        );
      return db.transaction().execute(async (trx) => {
        const d = await repo.upsertTermsTakingSerial(trx, {
          deploymentId: input.deploymentId,
          customerId: input.customerId,
          entitlements: input.entitlements,
          ttlSeconds: input.ttlSeconds,
          gracePeriodSeconds: DEFAULT_GRACE_SECONDS,
          contractEndsAt: input.contractEndsAtMs ? new Date(input.contractEndsAtMs) : null,
          devicePublicKey: input.devicePublicKey,
        });
        if (d.revoked_at)
          throw new LicenseError(
            "license_revoked",
            `deployment ${d.deployment_id} was revoked at ${d.revoked_at.toISOString()} (${d.revoke_reason}); a revoked deployment gets no new lease: issue under a new deployment_id`,
            { deployment_id: d.deployment_id },
          );
        return signAndRecord(trx, key, d, {
          requestedTtl: input.ttlSeconds,
          issuedBy: input.issuedBy,
          renewalOf: null,
        });
      });
    },

    /** A holder's renewal, proven by its device key; the deployment's terms carry over. */
    async renew(input: {
      deploymentId: string;
      renewLeaseId: string;
      deviceCredential: string;
    }): Promise<IssuedLease> {
      const key = signingKey();
      const parsed = parseRenewal(input.deviceCredential);
      if (!parsed)
        throw new LicenseError(
          "invalid_argument",
          "device_credential is not a signed renewal request (base64url claims, a dot, base64url signature; see docs/licensing.md)",
          { field: "device_credential" },
        );
      const c = parsed.claims;
      if (c.deployment_id !== input.deploymentId || c.lease_id !== input.renewLeaseId)
        throw new LicenseError(
          "invalid_argument",
          "the signed renewal names another deployment_id or lease than the request body",
          { field: "device_credential" },
        );
      const skew = Math.abs(Date.parse(c.signed_at) - deps.now()) / 1000;
      if (skew > RENEWAL_SKEW_SECONDS)
        throw new LicenseError(
          "device_credential_invalid",
          `the renewal was signed at ${c.signed_at}, ${Math.round(skew)} s from this server's clock (at most ${RENEWAL_SKEW_SECONDS} s): check the holder's clock and sign a fresh one`,
        );
      return db.transaction().execute(async (trx) => {
        const d = await repo.lockDeployment(trx, input.deploymentId);
        if (!d) throw deploymentNotFound(input.deploymentId);
        if (!d.device_public_key)
          throw new LicenseError(
            "device_credential_invalid",
            `deployment ${d.deployment_id} has no device key registered; ask the vendor to issue a lease with device_public_key`,
          );
        if (!(await renewalSignedBy(parsed, fromBase64Url(d.device_public_key)!)))
          throw new LicenseError(
            "device_credential_invalid",
            `the renewal is not signed by the device key registered for ${d.deployment_id}`,
          );
        const lease = await repo.findLease(trx, input.renewLeaseId);
        if (!lease || lease.deployment_id !== d.deployment_id)
          throw new LicenseError(
            "invalid_argument",
            `lease ${input.renewLeaseId} was not issued to deployment ${d.deployment_id}`,
            { field: "renew_lease_id" },
          );
        if (!(await repo.spendNonce(trx, d.deployment_id, c.nonce, 4 * RENEWAL_SKEW_SECONDS)))
          throw new LicenseError(
            "renewal_replayed",
            "this renewal request was used before (its nonce is spent); sign a fresh one",
          );
        if (d.revoked_at) {
          if (deps.registryEnforced)
            throw new LicenseError(
              "license_revoked",
              `the licenses of deployment ${d.deployment_id} were revoked at ${d.revoked_at.toISOString()}: ${d.revoke_reason}`,
              { deployment_id: d.deployment_id },
            );
          log.warn(
            { deployment_id: d.deployment_id },
            "renewing a revoked deployment: SVC_LICENSE_REGISTRY_ENFORCED=false lets revocations stand in the registry without denying renewals",
          );
        }
        // Idempotent per renewed lease: a holder that gave up waiting (identity stalled) and asked
        // again with a fresh nonce gets the lease the first request got, not a second one that
        // nobody would hold. The deployment row lock orders racing retries: one mints, the rest
        // find its lease. Re-signing the same payload gives the same signature (Ed25519 is
        // deterministic); a lease signed by a key since retired is replaced by a fresh one.
        const earlier = await repo.findLiveRenewalOf(
          trx,
          d.deployment_id,
          lease.lease_id,
          new Date(deps.now()),
        );
        if (earlier && earlier.public_key_id === key.publicKeyId) {
          const signed = await signLease(payloadOf(earlier), key);
          return { text: JSON.stringify(signed), payload: signed.payload };
        }
        const next = { ...d, last_serial: await repo.takeSerial(trx, d.deployment_id) };
        return signAndRecord(trx, key, next, {
          requestedTtl: d.ttl_seconds,
          issuedBy: `device:${d.deployment_id}`,
          renewalOf: lease.lease_id,
        });
      });
    },

    /** Audit row first, then the registry: every lease of the deployment is revoked. */
    async revoke(input: RevokeInput): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const d = await repo.lockDeployment(trx, input.deploymentId);
        if (!d) throw deploymentNotFound(input.deploymentId);
        const who = input.origin.principal;
        // The identity service keeps the chain: its own act goes straight in, in this transaction.
        await appendAuditEvent(trx, {
          id: randomUUID(),
          occurred_at: new Date(deps.now()).toISOString(),
          service: "identity",
          action: "admin.identity.license.revoke",
          outcome: "succeeded",
          resource: `license_deployment/${d.deployment_id}`,
          actor: auditActorOf(who),
          request_id: input.origin.requestId ?? "",
          trace_id: currentTraceId(),
          details: {
            deployment_id: d.deployment_id,
            reason: input.reason,
            already_revoked: d.revoked_at !== null,
            acr: who.acr ?? "",
            amr: who.amr,
            ...(who.authTime !== undefined ? { auth_time: who.authTime } : {}),
          },
        });
        return repo.revokeDeployment(trx, {
          deploymentId: d.deployment_id,
          by: who.sub,
          reason: input.reason,
        });
      });
    },

    /** The active key, then each retired key until the last lease it signed leaves its grace. */
    async publicKeys(): Promise<{
      active: LeasePublicKey;
      retired: Array<LeasePublicKey & { servedUntil: Date }>;
    }> {
      const active = signingKey();
      const ends = await repo.graceEndByKey(
        db,
        keys.retired.map((k) => k.publicKeyId),
      );
      const now = deps.now();
      const retired = keys.retired.flatMap((k) => {
        const until = ends.get(k.publicKeyId);
        return until && until.getTime() > now ? [{ ...k, servedUntil: until }] : [];
      });
      return { active, retired };
    },
  };
}

export type LeaseRegistry = ReturnType<typeof createLeaseRegistry>;

function windowFor(
  d: Pick<DeploymentRow, "contract_ends_at">,
  requestedTtl: number,
  nowMs: number,
) {
  try {
    return leaseWindow({
      nowMs,
      requestedTtlSeconds: requestedTtl,
      contractEndsAtMs: d.contract_ends_at?.getTime(),
    });
  } catch (err) {
    if (err instanceof LeaseTermsError) throw new LicenseError("license_invalid", err.message);
    throw err;
  }
}

/** The payload a recorded lease was signed with, rebuilt from its registry row. */
function payloadOf(row: LeaseRow): LeasePayload {
  const issuedAtMs = new Date(row.issued_at).getTime();
  const expiresAtMs = new Date(row.expires_at).getTime();
  return {
    format: LEASE_FORMAT,
    lease_id: row.lease_id,
    deployment_id: row.deployment_id,
    ...(row.customer_id ? { customer_id: row.customer_id } : {}),
    entitlements: row.entitlements,
    serial: row.serial,
    issued_at: leaseTime(issuedAtMs),
    expires_at: leaseTime(expiresAtMs),
    ttl_seconds: Math.round((expiresAtMs - issuedAtMs) / 1000),
    grace_period_seconds: row.grace_period_seconds,
    public_key_id: row.public_key_id,
  };
}

function deploymentNotFound(deploymentId: string): LicenseError {
  return new LicenseError(
    "license_deployment_not_found",
    `no lease was ever issued to deployment ${deploymentId}; check the id, or issue a first lease`,
    { deployment_id: deploymentId },
  );
}

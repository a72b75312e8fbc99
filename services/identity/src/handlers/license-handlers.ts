import { requestIdKey } from "@svc/lib/telemetry";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  GetLicensePublicKeyResponseSchema,
  IssueLeaseResponseSchema,
  LicensePublicKeySchema,
  LicenseService,
  RevokeDeploymentLeasesResponseSchema,
  type IssueLeaseRequest,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import {
  bearerRejectionKey,
  hasScope,
  policyOf,
  principalKey,
  principalOf,
  type Principal,
} from "@svc/lib/auth";
import { Code, svcError } from "@svc/lib/errors";
import type { LeasePublicKey } from "../lease/index.js";
import { LicenseError, type LicenseErrorCode } from "../licensing/license-error.js";
import type { IssuedLease, LeaseRegistry } from "../licensing/lease-registry.js";

const STATUS: Record<LicenseErrorCode, Code> = {
  invalid_argument: Code.InvalidArgument,
  license_lease_unavailable: Code.Unavailable,
  license_revoked: Code.PermissionDenied,
  license_invalid: Code.PermissionDenied,
  license_deployment_not_found: Code.NotFound,
  device_credential_invalid: Code.Unauthenticated,
  renewal_replayed: Code.AlreadyExists,
};

/** The issuer's scopes, read from the RPC's policy: the proto stays their one source. */
const ISSUE_SCOPES = policyOf(LicenseService.method.issueLease).scopes;

/**
 * The LicenseService RPCs: proto in, registry call, proto out. A request with a device credential
 * is a holder's renewal; any other is an issuance and needs a person holding ISSUE_SCOPES.
 */
export function createLicenseHandlers(
  registry: LeaseRegistry,
): Partial<ServiceImpl<typeof LicenseService>> {
  return {
    async issueLease(req, ctx) {
      const issued = await translated(() =>
        req.renewLeaseId || req.deviceCredential
          ? registry.renew({
              deploymentId: req.deploymentId,
              renewLeaseId: required(req.renewLeaseId, "renew_lease_id"),
              deviceCredential: required(req.deviceCredential, "device_credential"),
            })
          : registry.issue({
              deploymentId: req.deploymentId,
              entitlements: (req.entitlements as JsonObject | undefined) ?? {},
              ttlSeconds: Number(req.ttlSeconds),
              customerId: req.customerId || null,
              devicePublicKey: req.devicePublicKey || null,
              contractEndsAtMs: contractEnd(req),
              issuedBy: issuer(ctx).sub,
            }),
      );
      return issuedResponse(issued);
    },

    async getLicensePublicKey() {
      const { active, retired } = await translated(() => registry.publicKeys());
      return create(GetLicensePublicKeyResponseSchema, {
        publicKeyId: active.publicKeyId,
        publicKey: b64(active),
        retiredPublicKeyIds: retired.map((k) => k.publicKeyId),
        keys: [
          keyMessage(active, true),
          ...retired.map((k) => ({
            ...keyMessage(k, false),
            servedUntil: timestampFromMs(k.servedUntil.getTime()),
          })),
        ],
      });
    },

    async revokeDeploymentLeases(req, ctx) {
      const p = principalOf(ctx);
      const revoked = await translated(() =>
        registry.revoke({
          deploymentId: req.deploymentId,
          reason: req.reason,
          origin: { principal: p, requestId: ctx.values.get(requestIdKey) },
        }),
      );
      return create(RevokeDeploymentLeasesResponseSchema, { revoked });
    },
  };
}

/** The person issuing: the route is public for holders, so the issuer's policy is checked here. */
function issuer(ctx: HandlerContext): Principal {
  const p = ctx.values.get(principalKey);
  // A token was sent and refused (invalid, or the provider's keys unreachable): say that.
  const rejection = ctx.values.get(bearerRejectionKey);
  if (!p && rejection) throw rejection;
  if (!p)
    throw svcError(
      Code.Unauthenticated,
      "unauthenticated",
      `issuing a lease needs a valid bearer token with ${ISSUE_SCOPES.join(", ")}; a holder renews with renew_lease_id and device_credential instead`,
    );
  if (p.actorType === "agent")
    throw svcError(
      Code.PermissionDenied,
      "agent_not_allowed",
      "an agent may not issue a lease; a person must",
    );
  const missing = ISSUE_SCOPES.find((s) => !hasScope(p, s));
  if (missing)
    throw svcError(Code.PermissionDenied, "missing_scope", `the token lacks the scope ${missing}`, {
      scope: missing,
    });
  return p;
}

function required(value: string, field: string): string {
  if (!value)
    throw svcError(
      Code.InvalidArgument,
      "invalid_argument",
      `a renewal needs both renew_lease_id and device_credential; ${field} is missing`,
      { field },
    );
  return value;
}

function contractEnd(req: IssueLeaseRequest): number | undefined {
  return req.contractEndsAt ? timestampDate(req.contractEndsAt).getTime() : undefined;
}

function issuedResponse(issued: IssuedLease) {
  const p = issued.payload;
  return create(IssueLeaseResponseSchema, {
    lease: issued.text,
    leaseId: p.lease_id,
    publicKeyId: p.public_key_id,
    expiresAt: timestampFromMs(Date.parse(p.expires_at)),
    gracePeriodSeconds: BigInt(p.grace_period_seconds),
    serial: BigInt(p.serial),
  });
}

function keyMessage(k: LeasePublicKey, active: boolean) {
  return create(LicensePublicKeySchema, {
    publicKeyId: k.publicKeyId,
    publicKey: b64(k),
    publicKeyPem: k.publicKeyPem,
    active,
  });
}

function b64(k: LeasePublicKey): string {
  return Buffer.from(k.publicKey).toString("base64url");
}

/** Licensing refusals become the spec's codes; anything else passes as it is. */
async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof LicenseError)
      throw svcError(STATUS[err.code], err.code, err.message, err.details, { cause: err });
    throw err;
  }
}

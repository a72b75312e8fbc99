import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  CredentialMetadataSchema,
  CredentialService,
  DeleteCredentialResponseSchema,
  ListCredentialsResponseSchema,
  ResolveCredentialResponseSchema,
  RewrapCredentialsResponseSchema,
  type CredentialKind,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import {
  assertSteppedUp,
  callerNotAllowed,
  principalOf,
  refusedPrincipalKey,
  servicePrincipal,
  type AuthSettings,
} from "@svc/lib/auth";
import type { CredentialMetadataRow } from "../store/credential.repository.js";
import { isBrokerKind, kindOfName } from "../vault/credential-secret.js";
import type { CredentialVault } from "../vault/credential-vault.js";

/** The one caller a secret is delivered to: the bots service, whose runners trade. */
const RUNNER_SERVICE = "bots";

/**
 * The CredentialService RPCs. A broker credential's create and rotate need step-up MFA, which the
 * proto cannot say per kind: the handler asks it with the same check (and the same refusal,
 * audited as auth.step_up) the auth interceptor applies to a step_up route.
 */
export function createCredentialHandlers(
  vault: CredentialVault,
  auth: Pick<AuthSettings, "provider" | "stepUpMaxAgeSeconds" | "clockToleranceSeconds">,
): ServiceImpl<typeof CredentialService> {
  const stepUpFor = (kinds: CredentialKind[], ctx: HandlerContext) => {
    // Local auth trusts every caller and steps nobody up, as the interceptor does.
    if (auth.provider === "local" || !kinds.some(isBrokerKind)) return;
    const p = principalOf(ctx);
    ctx.values.set(refusedPrincipalKey, p);
    assertSteppedUp(p, auth);
  };

  return {
    async createCredential(req, ctx) {
      stepUpFor([vault.kindOf(req.secret, "secret")], ctx);
      return metadataOut(
        await vault.create(
          { name: req.name, fleet: req.fleet, bot: req.bot, secret: req.secret },
          ctx,
        ),
      );
    },

    async listCredentials() {
      return create(ListCredentialsResponseSchema, {
        items: (await vault.list()).map(metadataOut),
      });
    },

    async rotateCredential(req, ctx) {
      const next = vault.kindOf(req.secret, "secret");
      stepUpFor([next, await vault.storedKind(req.name)], ctx);
      return metadataOut(await vault.rotate(req.name, req.secret, ctx));
    },

    async deleteCredential(req, ctx) {
      await vault.remove(req.name, ctx);
      return create(DeleteCredentialResponseSchema, { deleted: true });
    },

    async rewrapCredentials(_req, ctx) {
      const done = await vault.rewrapAll(ctx);
      return create(RewrapCredentialsResponseSchema, {
        rewrapped: done.rewrapped,
        current: done.current,
        kekId: done.kekId,
      });
    },

    async resolveCredential(req, ctx) {
      // The interceptors let only the bots service through over the network and in one process;
      // under local auth every loopback caller passes them, so the handler asks again.
      if (principalOf(ctx).sub !== servicePrincipal(RUNNER_SERVICE).sub)
        throw callerNotAllowed(principalOf(ctx).sub, CredentialService.method.resolveCredential, [
          RUNNER_SERVICE,
        ]);
      const { meta, secret } = await vault.resolve(
        req.name,
        { bot: req.bot, fleet: req.fleet },
        ctx,
      );
      return create(ResolveCredentialResponseSchema, { metadata: metadataOut(meta), secret });
    },
  };
}

function metadataOut(row: CredentialMetadataRow) {
  return create(CredentialMetadataSchema, {
    name: row.name,
    kind: kindOfName(row.kind),
    fleet: row.fleet,
    bot: row.bot,
    version: BigInt(row.version),
    fingerprint: row.fingerprint,
    createdAt: timestampFromDate(row.created_at),
    rotatedAt: timestampFromDate(row.rotated_at),
    createdBy: row.created_by,
    rotatedBy: row.rotated_by,
  });
}

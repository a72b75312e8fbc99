import { randomUUID } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import type { CredentialKind, CredentialSecret } from "@svc/gen/svc/identity/v1/identity_pb.js";
import { auditOriginOf } from "@svc/lib/audit";
import { isUniqueViolation } from "@svc/lib/db";
import { Code, invalidField, svcError } from "@svc/lib/errors";
import * as repo from "../store/credential.repository.js";
import type { CredentialMetadataRow } from "../store/credential.repository.js";
import type { CredentialRow, IdentityDatabase } from "../store/identity.table.js";
import {
  checkedSecret,
  kindName,
  kindOfName,
  secretBytes,
  secretFromBytes,
} from "./credential-secret.js";
import { EnvelopeError, fingerprint, open, rewrap, seal, type Sealed } from "./envelope.js";
import type { Kek, KekRing } from "./kek.js";
import { auditInTransaction } from "../handlers/identity-audit.js";

export interface NewCredentialInput {
  name: string;
  fleet: string;
  bot: string;
  secret: CredentialSecret | undefined;
}

/** Who reads a secret: the runner of `bot` (of `fleet`), as the bots service vouches. */
export interface RunnerOf {
  bot: string;
  fleet: string;
}

export interface CredentialVault {
  /** The kind a secret is of, after its checks (for the step-up decision before any write). */
  kindOf(secret: CredentialSecret | undefined, at: string): CredentialKind;
  /** The stored kind of a credential (404 when there is none). */
  storedKind(name: string): Promise<CredentialKind>;
  create(input: NewCredentialInput, ctx: HandlerContext): Promise<CredentialMetadataRow>;
  list(): Promise<CredentialMetadataRow[]>;
  rotate(
    name: string,
    secret: CredentialSecret | undefined,
    ctx: HandlerContext,
  ): Promise<CredentialMetadataRow>;
  remove(name: string, ctx: HandlerContext): Promise<CredentialMetadataRow>;
  rewrapAll(ctx: HandlerContext): Promise<{ rewrapped: number; current: number; kekId: string }>;
  resolve(
    name: string,
    runner: RunnerOf,
    ctx: HandlerContext,
  ): Promise<{ meta: CredentialMetadataRow; secret: CredentialSecret }>;
}

/**
 * The vault over the credentials table: every secret sealed under a fresh data key wrapped by the
 * active key-encryption key, every mutation in one transaction with its audit row (who, which
 * credential, which kind; never the secret). With no KEK every call answers 503
 * vault_unavailable.
 */
export function createCredentialVault(
  db: Kysely<IdentityDatabase>,
  ring: KekRing,
): CredentialVault {
  const keys = (): { active: Kek; all: Kek[] } => {
    if (!ring.on)
      throw svcError(
        Code.Unavailable,
        "vault_unavailable",
        `the credentials vault is off: ${ring.why}`,
      );
    return {
      active: ring.active,
      all: ring.previous ? [ring.active, ring.previous] : [ring.active],
    };
  };

  const audit = auditInTransaction;

  const notFound = (name: string) =>
    svcError(Code.NotFound, "credential_not_found", `no credential named "${name}"`, { name });

  /** Opens a stored secret, or records the failure and refuses: a bad row never half-works. */
  const opened = async (row: CredentialRow, ctx: HandlerContext, all: Kek[]) => {
    try {
      return open(sealedOf(row), { credentialId: row.id, version: row.version }, all);
    } catch (err) {
      if (!(err instanceof EnvelopeError)) throw err;
      await db.transaction().execute((trx) =>
        audit(trx, ctx, {
          action: "identity.credential.undecryptable",
          outcome: "failed",
          resource: `credential/${row.name}`,
          details: { ...describe(row), reason: err.reason },
        }),
      );
      throw undecryptable(row, err);
    }
  };

  return {
    kindOf: checkedSecret,

    async storedKind(name) {
      keys();
      const row = await repo.findCredential(db, name);
      if (!row) throw notFound(name);
      return kindOfName(row.kind);
    },

    async create(input, ctx) {
      const { active } = keys();
      const kind = checkedSecret(input.secret, "secret");
      if (input.fleet && input.bot)
        throw invalidField(
          "bot",
          "a credential is scoped to one bot or to one fleet, not both: leave fleet or bot empty",
        );
      const plain = secretBytes(input.secret!);
      const id = randomUUID();
      const sealed = seal(plain, { credentialId: id, version: 1 }, active);
      const by = auditOriginOf(ctx).principal?.sub ?? "";
      try {
        return await db.transaction().execute(async (trx) => {
          const saved = await repo.insertCredential(trx, {
            id,
            name: input.name,
            kind: kindName(kind),
            fleet: input.fleet,
            bot: input.bot,
            version: 1,
            ...stored(sealed),
            fingerprint: fingerprint(plain, active),
            created_by: by,
            rotated_by: by,
          });
          await audit(trx, ctx, {
            action: "identity.credential.created",
            outcome: "succeeded",
            resource: `credential/${saved.name}`,
            details: describe(saved),
          });
          return saved;
        });
      } catch (err) {
        if (isUniqueViolation(err))
          throw svcError(
            Code.AlreadyExists,
            "credential_exists",
            `a credential named "${input.name}" exists; rotate it (POST /credentials/${input.name}/rotate) or delete it first`,
            { name: input.name },
          );
        throw err;
      } finally {
        plain.fill(0);
      }
    },

    async list() {
      keys();
      return repo.listCredentials(db);
    },

    async rotate(name, secret, ctx) {
      const { active } = keys();
      const kind = checkedSecret(secret, "secret");
      const plain = secretBytes(secret!);
      try {
        return await db.transaction().execute(async (trx) => {
          const row = await repo.findCredential(trx, name, true);
          if (!row) throw notFound(name);
          if (row.kind !== kindName(kind))
            throw svcError(
              Code.InvalidArgument,
              "credential_kind_mismatch",
              `credential "${name}" holds ${row.kind}; its new secret must be ${row.kind} too, not ${kindName(kind)} (delete it and create another to change its kind)`,
              { name, kind: row.kind },
            );
          const version = row.version + 1;
          const sealed = seal(plain, { credentialId: row.id, version }, active);
          const saved = await repo.replaceSecret(trx, row.id, {
            version,
            ...stored(sealed),
            fingerprint: fingerprint(plain, active),
            rotated_by: auditOriginOf(ctx).principal?.sub ?? "",
          });
          await audit(trx, ctx, {
            action: "identity.credential.rotated",
            outcome: "succeeded",
            resource: `credential/${name}`,
            details: describe(saved),
          });
          return saved;
        });
      } finally {
        plain.fill(0);
      }
    },

    async remove(name, ctx) {
      keys();
      const gone = await db.transaction().execute(async (trx) => {
        const row = await repo.deleteCredential(trx, name);
        if (row)
          await audit(trx, ctx, {
            action: "identity.credential.deleted",
            outcome: "succeeded",
            resource: `credential/${name}`,
            details: describe(row),
          });
        return row;
      });
      if (!gone) throw notFound(name);
      return gone;
    },

    async rewrapAll(ctx) {
      const { active, all } = keys();
      return db.transaction().execute(async (trx) => {
        const stale = await repo.credentialsNotUnder(trx, active.id);
        for (const row of stale) {
          let next: Sealed;
          try {
            next = rewrap(
              sealedOf(row),
              { credentialId: row.id, version: row.version },
              all,
              active,
            );
          } catch (err) {
            if (err instanceof EnvelopeError) throw undecryptable(row, err);
            throw err;
          }
          await repo.setWrappedKey(trx, row.id, active.id, next.wrappedKey);
        }
        const total = await repo.countCredentials(trx);
        if (stale.length > 0)
          await audit(trx, ctx, {
            action: "identity.credential.rewrapped",
            outcome: "succeeded",
            resource: "credential/*",
            details: {
              kek_id: active.id,
              from_kek_ids: [...new Set(stale.map((r) => r.kek_id))],
              credentials: stale.map((r) => r.name),
            },
          });
        return { rewrapped: stale.length, current: total - stale.length, kekId: active.id };
      });
    },

    async resolve(name, runner, ctx) {
      const { all } = keys();
      const row = await repo.findCredential(db, name);
      if (!row) throw notFound(name);
      const covered = row.bot
        ? row.bot === runner.bot
        : row.fleet !== "" && row.fleet === runner.fleet;
      if (!covered) {
        await db.transaction().execute((trx) =>
          audit(trx, ctx, {
            action: "identity.credential.delivered",
            outcome: "denied",
            resource: `credential/${name}`,
            details: { ...describe(row), to_bot: runner.bot, to_fleet: runner.fleet },
          }),
        );
        throw svcError(
          Code.PermissionDenied,
          "credential_out_of_scope",
          `credential "${name}" is not for bot ${runner.bot}: it is scoped to ${row.bot ? `bot ${row.bot}` : row.fleet ? `fleet ${row.fleet}` : "no bot or fleet"}`,
          { name, bot: runner.bot },
        );
      }
      const plain = await opened(row, ctx, all);
      try {
        const secret = secretFromBytes(plain);
        await db.transaction().execute((trx) =>
          audit(trx, ctx, {
            action: "identity.credential.delivered",
            outcome: "succeeded",
            resource: `credential/${name}`,
            details: { ...describe(row), to_bot: runner.bot, to_fleet: runner.fleet },
          }),
        );
        return { meta: row, secret };
      } finally {
        plain.fill(0);
      }
    },
  };
}

function sealedOf(row: CredentialRow): Sealed {
  return { kekId: row.kek_id, wrappedKey: row.wrapped_key, ciphertext: row.ciphertext };
}

function stored(s: Sealed) {
  return { kek_id: s.kekId, wrapped_key: s.wrappedKey, ciphertext: s.ciphertext };
}

/** What the audit trail says of a credential: never its secret, nor its fingerprint. */
function describe(row: CredentialMetadataRow): JsonObject {
  return { name: row.name, kind: row.kind, fleet: row.fleet, bot: row.bot, version: row.version };
}

function undecryptable(row: CredentialRow, err: EnvelopeError) {
  return svcError(
    Code.DataLoss,
    "credential_undecryptable",
    `credential "${row.name}" cannot be opened: ${err.message}. Nothing was delivered; write it again with a rotation`,
    { name: row.name, reason: err.reason },
    { cause: err },
  );
}

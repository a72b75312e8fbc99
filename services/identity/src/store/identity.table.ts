import type { JsonObject } from "@bufbuild/protobuf";
import type { ColumnType, Selectable } from "kysely";

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null, Date | string | null>;
type Json<T> = ColumnType<T, string, string>;
/** A column the database fills when an insert leaves it out. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;

/** The identity schema, as far as licensing and the audit trail need it. */
export interface IdentityDatabase {
  /** The credentials vault: secrets only as envelopes (docs/identity.md, Credentials). */
  credentials: {
    id: string;
    name: string;
    kind: string;
    fleet: string;
    bot: string;
    version: number;
    kek_id: string;
    wrapped_key: Buffer;
    ciphertext: Buffer;
    fingerprint: string;
    created_by: string;
    created_at: Timestamp;
    rotated_by: string;
    rotated_at: Timestamp;
  };
  /** Platform events people may hear of; seq is the SSE id (docs/notifications.md). */
  notification_events: {
    seq: ColumnType<string, never, never>;
    id: string;
    type: string;
    occurred_at: Timestamp;
    data: Json<JsonObject>;
    recorded_at: ColumnType<Date, never, never>;
  };
  /** An org's webhook subscription; its signing secret only as a vault envelope. */
  webhook_subscriptions: {
    id: string;
    org_id: string;
    url: string;
    event_types: Json<string[]>;
    description: string;
    kek_id: string;
    wrapped_key: Buffer;
    ciphertext: Buffer;
    created_by: string;
    created_at: Defaulted<Date>;
  };
  webhook_deliveries: {
    id: string;
    subscription_id: string;
    event_seq: string;
    status: "pending" | "delivered" | "dead";
    attempts: Defaulted<number>;
    next_attempt_at: Timestamp;
    last_error: Defaulted<string>;
    created_at: Defaulted<Date>;
  };
  webhook_attempts: {
    id: ColumnType<string, never, never>;
    delivery_id: string;
    attempt: number;
    at: Defaulted<Date>;
    status_code: number;
    error: string;
    duration_ms: number;
  };
  users: {
    id: string;
    subject: string;
    email: string;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  orgs: {
    id: string;
    external_id: string | null;
    name: string;
    /** hybrid, invite_only or group_mapped: which sources grant memberships in the org. */
    tenancy_strategy: Defaulted<string>;
    created_at: Timestamp;
  };
  /** An invite keeps only the SHA-256 of its token. */
  org_invites: {
    id: string;
    org_id: string;
    token_hash: string;
    role: string;
    email: Defaulted<string>;
    issued_by: string;
    created_at: Timestamp;
    expires_at: Timestamp;
    accepted_by: Defaulted<string>;
    accepted_at: NullableTimestamp;
    revoked_by: Defaulted<string>;
    revoked_at: NullableTimestamp;
  };
  /** The groups a person last reported through a connection kind of an org. */
  external_groups: {
    user_id: string;
    org_id: string;
    connection_kind: string;
    groups: Json<string[]>;
    synced_at: Timestamp;
  };
  memberships: {
    user_id: string;
    org_id: string;
    scope_kind: string;
    scope_id: string;
    role: string;
    /** idp_org (the org a login came through) or idp_group (a mapped external group). */
    source: string;
    connection_kind: Defaulted<string>;
    source_group: Defaulted<string>;
    created_at: Timestamp;
  };
  idp_connections: {
    id: string;
    org_id: string;
    connection_kind: string;
    name: string;
    status: string;
    created_at: Timestamp;
  };
  idp_group_mappings: {
    id: string;
    org_id: string;
    connection_kind: string;
    external_group: string;
    scope_kind: string;
    scope_id: string;
    role: string;
    created_by: string;
    created_at: Timestamp;
  };
  license_deployments: {
    deployment_id: string;
    customer_id: string | null;
    entitlements: Json<JsonObject>;
    ttl_seconds: number;
    grace_period_seconds: number;
    contract_ends_at: NullableTimestamp;
    device_public_key: string | null;
    last_serial: number;
    revoked_at: NullableTimestamp;
    revoked_by: string | null;
    revoke_reason: string | null;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  license_leases: {
    lease_id: string;
    deployment_id: string;
    serial: number;
    public_key_id: string;
    customer_id: string | null;
    entitlements: Json<JsonObject>;
    issued_at: Timestamp;
    expires_at: Timestamp;
    grace_period_seconds: number;
    issued_by: string;
    renewal_of: string | null;
    revoked_at: NullableTimestamp;
    revoked_by: string | null;
    revoke_reason: string | null;
  };
  license_renewal_nonces: {
    deployment_id: string;
    nonce: string;
    seen_at: Timestamp;
  };
  security_audit_events: {
    seq: string;
    id: string;
    created_at: Timestamp;
    service: string;
    event_type: string;
    outcome: string;
    resource: string;
    actor_user_id: string;
    actor_type: string;
    user_id: string;
    request_id: string;
    trace_id: string;
    /** Canonical JSON text, exactly what the hash covers (with `delegation` for a delegated call). */
    details: string;
    prev_hash: string;
    hash: string;
    /** 1: hashed under the old field names (before 2026-11-30T0100); 2: as named now. */
    hash_format: number;
    recorded_at: ColumnType<Date, never, never>;
  };
  /** Before the chain; no longer written. */
  audit_events: {
    id: ColumnType<string, never, never>;
    created_at: Timestamp;
    event_type: string;
    actor_sub: string;
    actor_type: string;
    target: string;
    details: Json<JsonObject>;
  };
}

export type DeploymentRow = Selectable<IdentityDatabase["license_deployments"]>;
export type LeaseRow = Selectable<IdentityDatabase["license_leases"]>;
export type MembershipRow = Selectable<IdentityDatabase["memberships"]>;
export type GroupMappingRow = Selectable<IdentityDatabase["idp_group_mappings"]>;
export type SecurityAuditRow = Selectable<IdentityDatabase["security_audit_events"]>;

export type OrgInviteRow = Selectable<IdentityDatabase["org_invites"]>;
export type CredentialRow = Selectable<IdentityDatabase["credentials"]>;

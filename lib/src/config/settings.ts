/**
 * Every SVC_* setting: its kind, default and meaning. The one table that the parser, the README's
 * configuration section and the start-up error messages are all read from.
 */
import { AUTH_DEFAULTS } from "../auth/settings.js";

export type SettingKind =
  | { type: "string" }
  | { type: "url"; protocols: string[] }
  | { type: "int"; min: number; max: number }
  | { type: "bool" }
  | { type: "enum"; values: readonly string[] };

export interface SettingDef {
  kind: SettingKind;
  default?: string;
  doc: string;
  /** A secret: never printed, never read from files in the repo. */
  secret?: boolean;
}

const url = (...protocols: string[]): SettingKind => ({ type: "url", protocols });
const int = (min: number, max: number): SettingKind => ({ type: "int", min, max });
const bool: SettingKind = { type: "bool" };
const str: SettingKind = { type: "string" };
const oneOf = (...values: string[]): SettingKind => ({ type: "enum", values });

export const SETTINGS = {
  SVC_HOST: {
    kind: str,
    default: "127.0.0.1",
    doc: "Address the gateway (or a standalone service) listens on.",
  },
  SVC_PORT: { kind: int(0, 65535), default: "8080", doc: "HTTP port of the gateway (REST edge)." },
  SVC_GRPC_PORT: {
    kind: int(0, 65535),
    default: "50051",
    doc: "Port a standalone service serves gRPC and Connect on (HTTP/2 cleartext inside a mesh).",
  },
  SVC_DATABASE_URL: {
    kind: url("postgres:", "postgresql:"),
    doc: "Postgres URL. Unset: embedded PGlite under SVC_DATA_DIR.",
    secret: true,
  },
  SVC_DATA_DIR: {
    kind: str,
    default: ".data",
    doc: "Folder of the embedded PGlite database when SVC_DATABASE_URL is unset; memory:// keeps it in memory.",
  },
  SVC_PGLITE_TEMPLATE_DIR: {
    kind: str,
    default: "node_modules/.cache/svc-pglite-templates",
    doc: "Where migrated PGlite templates are kept, one per set of migrations: a new embedded database (an empty SVC_DATA_DIR, or memory://) starts as a copy of one instead of running initdb and every migration (or takes the spare copy a start made once ready); the first start after a migration changes builds it. Relative to the folder the platform starts in; off: no templates.",
  },
  SVC_PGLITE_SHARED_BUFFERS_MB: {
    kind: int(1, 1024),
    default: "16",
    doc: "PostgreSQL's shared_buffers of the embedded PGlite, in MiB (PostgreSQL's default is 128): PGlite's memory never shrinks, so this bounds what it keeps resident; the operating system still caches the data folder.",
  },
  SVC_NATS_URL: { kind: url("nats:", "tls:"), doc: "NATS (JetStream) URL. Unset: in-process bus." },
  SVC_NATS_NAMESPACE: {
    kind: str,
    default: "svc",
    doc: "Subject space and stream of the platform's events on NATS (svc: subjects svc.>, stream SVC_EVENTS); lets environments share one NATS.",
  },
  SVC_REDIS_URL: {
    kind: url("redis:", "rediss:"),
    doc: "Redis URL for the kill-switch keys. Unset: in-process key-value store.",
    secret: true,
  },
  SVC_LOG_LEVEL: {
    kind: oneOf("fatal", "error", "warn", "info", "debug", "trace", "silent"),
    default: "info",
    doc: "Log level.",
  },
  SVC_LOG_FORMAT: {
    kind: oneOf("auto", "json", "pretty"),
    default: "auto",
    doc: "json: one JSON object per line, for a log platform; pretty: one coloured line per request and per domain event, for a person (successful internal RPCs only at debug); auto: pretty when stdout is a terminal, else json.",
  },
  SVC_SERVICE_CLIENT_ID: {
    kind: str,
    doc: "This service's own client at the OIDC provider (client credentials), named svc-service-<service>: a standalone service calls another with a machine token of it, audience urn:svc:service:<callee>. Unset: under SVC_AUTH_PROVIDER=oidc it calls no peer (the start-up log says which calls then fail closed).",
  },
  SVC_SERVICE_CLIENT_SECRET: {
    kind: str,
    doc: "The secret of SVC_SERVICE_CLIENT_ID.",
    secret: true,
  },
  SVC_OTLP_ENDPOINT: {
    kind: url("http:", "https:"),
    doc: "OpenTelemetry collector (OTLP over HTTP, e.g. http://otel-collector:4318): each process exports its traces there. Unset: spans are not recorded.",
  },
  SVC_OTLP_PROTOCOL: {
    kind: oneOf("http/protobuf", "http/json"),
    default: "http/protobuf",
    doc: "Encoding of the OTLP export (both are OTLP/HTTP; the collector accepts either).",
  },
  SVC_METRICS_PORT: {
    kind: int(0, 65535),
    doc: "Port of the process's Prometheus endpoint (GET /metrics on SVC_HOST). Unset: no endpoint.",
  },
  SVC_BODY_LIMIT_BYTES: {
    kind: int(1024, 64 * 1024 * 1024),
    default: "1048576",
    doc: "Largest request body the gateway accepts (413 past it).",
  },
  SVC_DATASET_MAX_BYTES: {
    kind: int(1024, 1024 * 1024 * 1024),
    default: "20971520",
    doc: "Largest CSV POST /datasets keeps, and largest raw text/csv body the gateway reads (413 past it); a JSON upload is bounded by SVC_BODY_LIMIT_BYTES.",
  },
  SVC_DATASET_IMPORT_URL_PREFIXES: {
    kind: str,
    default: "",
    doc: "Comma-separated URL prefixes POST /datasets may stream a file from (`url`), for example https://data.example.com/exports/; empty (the default): none, 403 import_url_not_allowed.",
  },
  SVC_DATASET_IMPORT_MAX_BYTES: {
    kind: int(1024, 1024 * 1024 * 1024 * 1024),
    default: "4294967296",
    doc: "Largest file POST /datasets streams from a `url` (413 dataset_too_large past it); it is spooled to a temporary file, never held in memory whole.",
  },
  SVC_DATA_PULL_EXCHANGES: {
    kind: str,
    default: "",
    doc: "Comma-separated ccxt exchange ids POST /datasets/{name}/pull may fetch from, each optionally `id=base-url` to point ccxt at another host (the dev venue's Binance facade: binance=http://127.0.0.1:8090); empty (the default): none, 403 exchange_not_allowed.",
  },

  SVC_BOTS_URL: {
    kind: url("http:", "https:"),
    doc: "Address of the bots service, for the gateway and for the standalone killswitch service (bot targets it has not seen, a drill's roster; unset there: drills answer 503). Unset in all-in-one: mounted in-process.",
  },
  SVC_PROMOTION_URL: {
    kind: url("http:", "https:"),
    doc: "Gateway: address of the promotion service.",
  },
  SVC_KILLSWITCH_URL: {
    kind: url("http:", "https:"),
    doc: "Address of the killswitch service, for the gateway and for the standalone promotion service's kill-switch gate (unset there: the gate fails closed with 503).",
  },
  SVC_COMPLIANCE_URL: {
    kind: url("http:", "https:"),
    doc: "Gateway: address of the compliance service.",
  },
  SVC_IDENTITY_URL: {
    kind: url("http:", "https:"),
    doc: "Gateway: address of the identity service.",
  },

  SVC_AUTH_PROVIDER: {
    kind: oneOf("local", "oidc"),
    default: "local",
    doc: "local: a deterministic local-default user, loopback only; oidc: bearer tokens from SVC_AUTH_OIDC_ISSUER.",
  },
  SVC_AUTH_OIDC_ISSUER: {
    kind: url("http:", "https:"),
    doc: "Issuer URL of the OIDC provider (iss claim).",
  },
  SVC_AUTH_OIDC_AUDIENCE: { kind: str, doc: "API audience access tokens must carry (aud claim)." },
  SVC_AUTH_OIDC_JWKS_URI: {
    kind: url("http:", "https:"),
    doc: "JWKS endpoint; defaults to <issuer>/.well-known/jwks.json.",
  },
  SVC_AUTH_CLAIMS_NAMESPACE: {
    kind: str,
    default: AUTH_DEFAULTS.claimsNamespace,
    doc: "URL-style prefix (ending in /) of the custom claims the sync hook adds.",
  },
  SVC_AUTH_ENFORCE: {
    kind: oneOf("strict", "permissive"),
    default: AUTH_DEFAULTS.enforce,
    doc: "strict: missing membership rows answer 403; permissive: emergency mitigation for read-only routes only.",
  },
  SVC_AUTH_M2M_ENABLED: {
    kind: bool,
    default: "false",
    doc: "Accept machine-to-machine tokens on the internal sync routes.",
  },
  SVC_AUTH_M2M_AUDIENCE: {
    kind: str,
    doc: "Audience machine tokens must carry; defaults to SVC_AUTH_OIDC_AUDIENCE.",
  },
  SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED: {
    kind: bool,
    default: "false",
    doc: "Accept RFC 8693 delegated agent tokens (act claim).",
  },
  SVC_AUTH_AGENT_BROKER_CLIENT_ID: { kind: str, doc: "Client id of the agent token broker." },
  SVC_AUTH_AGENT_BROKER_CLIENT_SECRET: {
    kind: str,
    doc: "Secret of the agent token broker (from a secrets platform).",
    secret: true,
  },
  SVC_AUTH_AGENT_DELEGATION_TTL_SECONDS: {
    kind: int(30, 86_400),
    default: "300",
    doc: "Lifetime of delegated agent tokens.",
  },
  SVC_AUTH_LOGIN_CLIENT_ID: {
    kind: str,
    default: "svc-console",
    doc: "Public client (authorization code with PKCE) that GET /auth/login signs people in as.",
  },
  SVC_AUTH_LOGIN_CLIENT_SECRET: {
    kind: str,
    doc: "Secret of the login client when the provider registers it as confidential.",
    secret: true,
  },
  SVC_AUTH_LOGIN_STATE_KEY: {
    kind: str,
    doc: "32 bytes, base64: seals the login state between /auth/login and /auth/callback. Unset: a key per process (set it when several identity processes serve logins).",
    secret: true,
  },
  SVC_PUBLIC_URL: {
    kind: url("http:", "https:"),
    doc: "The platform's address as browsers reach it (the login returns to <it>/auth/callback), and the one Host the gateway serves (others: 403 host_not_allowed; /healthz and /readyz excepted). Unset: the loopback address the request came in on (under local auth only loopback Hosts are served).",
  },
  SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: {
    kind: str,
    doc: "Ed25519 private key (PKCS#8 PEM) that signs license leases; identity service only.",
    secret: true,
  },
  SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PATH: {
    kind: str,
    doc: "Path of a file holding that key, mounted from a secrets platform.",
  },
  SVC_AUTH_LICENSE_LEASE_RETIRED_PUBLIC_KEYS_PEM: {
    kind: str,
    doc: "Earlier lease-signing public keys after a rotation (SPKI PEM blocks, concatenated): each stays served at /auth/license/public-key until every lease it signed has left its grace period.",
  },

  SVC_VAULT_KEK: {
    kind: str,
    doc: "The credentials vault's key-encryption key: base64 of 32 random bytes (openssl rand -base64 32), from the environment or a secrets platform, never the database; identity service only. It wraps each credential's data key. Unset: the credential routes answer 503 vault_unavailable (the start-up log says so).",
    secret: true,
  },
  SVC_VAULT_PREVIOUS_KEK: {
    kind: str,
    doc: "The vault's key-encryption key before a rotation: credentials it wrapped still open, and POST /admin/credentials/rewrap wraps them with SVC_VAULT_KEK (docs/identity.md, Credentials).",
    secret: true,
  },

  SVC_WEBHOOK_ALLOW_HTTP_LOOPBACK: {
    kind: bool,
    default: "false",
    doc: "Lets a webhook subscription post to http:// (or https://) on a loopback address, for a receiver on a developer's machine. Off: webhook URLs are https:// to public addresses only (docs/notifications.md).",
  },
  SVC_WEBHOOK_DELIVERY_TIMEOUT_MS: {
    kind: int(100, 60_000),
    default: "10000",
    doc: "Deadline of one webhook attempt, connection included; a receiver slower than this has failed the attempt.",
  },
  SVC_WEBHOOK_MAX_ATTEMPTS: {
    kind: int(1, 50),
    default: "8",
    doc: "Attempts of one webhook delivery before it becomes a dead letter (GET /webhooks/dead-letters, replayed with POST /webhooks/deliveries/{id}/replay).",
  },
  SVC_WEBHOOK_RETRY_BASE_MS: {
    kind: int(10, 3_600_000),
    default: "5000",
    doc: "The first retry's wait after a failed webhook attempt; each further failure doubles it (half of it random jitter), up to SVC_WEBHOOK_RETRY_MAX_MS.",
  },
  SVC_WEBHOOK_RETRY_MAX_MS: {
    kind: int(10, 86_400_000),
    default: "3600000",
    doc: "The longest wait between two attempts of a webhook delivery.",
  },
  SVC_WEBHOOK_POLL_INTERVAL_MS: {
    kind: int(50, 60_000),
    default: "1000",
    doc: "How often the identity service looks for webhook deliveries that are due.",
  },

  SVC_AUDIT_CHECKPOINT_PRIVATE_KEY_PEM: {
    kind: str,
    doc: "Ed25519 private key (PKCS#8 PEM) that signs the audit trail's checkpoints; identity service only, never the lease key. Unset: a key made at start, which anchors nothing across a restart (the start-up log says so).",
    secret: true,
  },
  SVC_AUDIT_CHECKPOINT_TRUSTED_PUBLIC_KEYS_PEM: {
    kind: str,
    doc: "Other checkpoint public keys verify still trusts (SPKI PEM blocks, concatenated): the keys before a rotation, for as long as their checkpoints are kept.",
  },
  SVC_AUDIT_CHECKPOINT_INTERVAL_MS: {
    kind: int(100, 86_400_000),
    default: "60000",
    doc: "Milliseconds between two heartbeat checkpoints of the audit trail (each append is also checkpointed as it commits).",
  },
  SVC_AUDIT_CHECKPOINT_RETENTION_DAYS: {
    kind: int(1, 36_500),
    default: "3650",
    doc: "Days the checkpoint stream (<NAMESPACE>_AUDIT_CHECKPOINTS on NATS) keeps a checkpoint; its only limit.",
  },

  SVC_PROMOTION_LAB_EVIDENCE_ENFORCE: {
    kind: bool,
    default: "false",
    doc: "Promotion gates fail closed without a complete EvidenceBundle.",
  },
  SVC_PROMOTION_SKIP_HUMAN_KINDS: {
    kind: str,
    doc: "Comma-separated promotion kinds (strategy, drl_policy, allocation) for which a submitter's requires_human_approval=false is honoured; never for an agent's request. Empty: a human approves every request.",
  },
  SVC_TRIAL_LEDGER_N_ENFORCE: {
    kind: bool,
    default: "false",
    doc: "Trial count N for DSR/PBO comes from the TrialLedger, never from the request.",
  },
  SVC_TRIAL_LEDGER_MIN_TRIALS: {
    kind: int(2, 1_000_000),
    default: "2",
    doc: "With SVC_TRIAL_LEDGER_N_ENFORCE, the fewest trials the TrialLedger must hold for the bot before a promotion request of one of its versions is even gated: fewer is refused 412 too_few_trials (nothing recorded), naming the count and this minimum.",
  },
  SVC_APPROVAL_EXPIRY_ENFORCEMENT_ENABLED: {
    kind: bool,
    default: "false",
    doc: "Sweep pending promotion requests past expires_at to expired.",
  },
  SVC_APPROVAL_TTL_SECONDS: {
    kind: int(60, 90 * 86_400),
    default: "604800",
    doc: "Time a promotion request may wait for a human when expiry is enforced.",
  },
  SVC_PROMOTION_SWEEP_INTERVAL_MS: {
    kind: int(100, 3_600_000),
    default: "5000",
    doc: "Milliseconds between two sweeps that move pending promotion requests past expires_at to expired, when expiry is enforced.",
  },
  SVC_LICENSE_ENFORCEMENT_ENABLED: {
    kind: bool,
    default: "false",
    doc: "Gate byoc_deployments, kb_federation and live_trading on the verified lease in SVC_LICENSE_DIR (needs SVC_LICENSE_DEPLOYMENT_ID and SVC_LICENSE_PINNED_KEY_IDS): in grace routes pass with X-Service-License-Status: grace, after it they answer 403 license_invalid and trading bots are reduce-only.",
  },
  SVC_LICENSE_REGISTRY_ENFORCED: {
    kind: bool,
    default: "false",
    doc: "Renewals consult the lease registry (revocation denies renewal).",
  },
  SVC_LICENSE_SERVER_URL: {
    kind: url("http:", "https:"),
    doc: "License daemon: base URL of the vendor's API that renews this install's lease (POST /auth/license/leases).",
  },
  SVC_LICENSE_DEPLOYMENT_ID: {
    kind: str,
    doc: "License daemon and gate: this install's deployment id; a lease for any other deployment is refused.",
  },
  SVC_LICENSE_DIR: {
    kind: str,
    default: ".data/license",
    doc: "License daemon and gate: folder of the lease file (lease.json), its status (status.json), its memory (state.json) and the device key.",
  },
  SVC_LICENSE_PINNED_KEY_IDS: {
    kind: str,
    doc: "License daemon and gate: comma-separated public_key_id values (RFC 7638 thumbprints) trusted; a lease signed by any other key is refused.",
  },
  SVC_LICENSE_REFRESH_MS: {
    kind: int(100, 3_600_000),
    default: "1000",
    doc: "License gate: milliseconds between two reads of the lease folder (a renewed lease takes effect within this); the lease is judged against the clock at every request.",
  },
  SVC_LICENSE_CHECK_INTERVAL_S: {
    kind: int(1, 86_400),
    default: "900",
    doc: "License daemon: seconds between two checks of the lease file; it renews when under 24 hours of validity remain.",
  },
  SVC_PROMOTION_SIGNING_KEY_PEM: {
    kind: str,
    doc: "Ed25519 private key (PKCS#8 PEM) that signs ApprovedPromotion tokens; promotion service only. All-in-one without it: an ephemeral key per start.",
    secret: true,
  },
  SVC_PROMOTION_PUBLIC_KEY_PEM: {
    kind: str,
    doc: "Ed25519 public key (SPKI PEM) with which the bots service verifies ApprovedPromotion tokens offline.",
  },
  SVC_RUNNERS: {
    kind: oneOf("in-process", "external"),
    default: "in-process",
    doc: "Where paper-session runners run: in the bots service process, or in runner processes (npm run runner -w services/bots; a pod each in a cluster).",
  },
  SVC_KUBE_API_URL: {
    kind: url("http:", "https:"),
    doc: "Kubernetes API server for k8s deployments of bots; unset: deploy to k8s answers 412 naming this setting.",
  },
  SVC_KUBE_TIMEOUT_MS: {
    kind: int(100, 120_000),
    default: "10000",
    doc: "Deadline of one call to the Kubernetes API server (deploy, scale, the kill-switch controller); a server that hangs answers 503 kubernetes_unreachable after it.",
  },
  SVC_KUBE_NAMESPACE: {
    kind: str,
    default: "svc",
    doc: "Namespace of the Bot custom resources a k8s deployment creates.",
  },
  SVC_KUBE_TOKEN: {
    kind: str,
    doc: "Bearer token for the Kubernetes API server; unset: the pod's service account (its projected token, re-read as it rotates) when running in a cluster, else the current user of KUBECONFIG.",
    secret: true,
  },
  SVC_KILLSWITCH_POLL_INTERVAL_S: {
    kind: int(1, 60),
    default: "5",
    doc: "How often runners poll their kill-switch keys.",
  },
  SVC_KILLSWITCH_DRILL_DRAINING_S: {
    kind: int(1, 600),
    default: "10",
    doc: "Drill bound: a running bot must announce Draining within this many seconds of the drill's engagement (the spec: 10).",
  },
  SVC_KILLSWITCH_DRILL_STOPPED_HF_S: {
    kind: int(1, 3_600),
    default: "30",
    doc: "Drill bound: a high-frequency bot (engine.high_frequency, or bars under one minute) must announce Stopped within this many seconds of the engagement (the spec: 30).",
  },
  SVC_KILLSWITCH_DRILL_STOPPED_S: {
    kind: int(1, 3_600),
    default: "300",
    doc: "Drill bound: any other bot must announce Stopped within this many seconds of the engagement (the spec: 300); a drill waits at most this long, plus the Draining bound for the restart.",
  },
  SVC_RUNNER_LEASE_S: {
    kind: int(3, 600),
    default: "15",
    doc: "Seconds a paper session's or a runner's host may stay silent before another takes its deployment over; the old holder's writes are fenced off from then on, and a runner at a venue sends no order once its last renewal is two thirds of this old.",
  },
  SVC_RUNNER_WORKLOADS: {
    kind: oneOf("off", "kubernetes"),
    default: "off",
    doc: "kubernetes: the bots service turns each Bot resource into a one-replica runner Deployment (bot-runner-<slug>) at start, at once after each DeployBot k8s, and every 30 s (needs SVC_KUBE_API_URL); off: Bot resources are written and nothing runs them.",
  },
  SVC_RUNNER_IMAGE: {
    kind: str,
    default: "svc-platform",
    doc: "The image of a bot's runner workload (the platform image: it runs npm run runner:live -w services/bots).",
  },
  SVC_RUNNER_RUNTIME_CLASS: {
    kind: str,
    default: "gvisor",
    doc: "The RuntimeClass of a bot's runner workload (the strategy sandbox's; deploy/k8s/cluster); empty: the node's default runtime.",
  },
  SVC_LIVE_MODE: {
    kind: oneOf("paper", "live"),
    default: "paper",
    doc: "A runner workload's mode: paper (the venue's live data, simulated fills) or live (orders to the venue; needs the license's live_trading feature where enforcement is on).",
  },
  SVC_LIVE_VENUE: {
    kind: oneOf("fix", "ccxt"),
    default: "fix",
    doc: "The venue adapter of a runner (a runner workload, or DeployBot live/venue_paper in the bots service's process): fix (FIX 4.4 over jspurefix) or ccxt (a Binance-compatible REST API at SVC_LIVE_VENUE_HOST:SVC_LIVE_VENUE_PORT).",
  },
  SVC_LIVE_VENUE_HOST: {
    kind: str,
    default: "127.0.0.1",
    doc: "The venue's host for a runner, in a workload or in the bots service (the dev venue: npm run venue).",
  },
  SVC_LIVE_VENUE_PORT: {
    kind: int(1, 65_535),
    default: "9878",
    doc: "The venue's port for a runner workload: the FIX acceptor's, or the REST API's for ccxt.",
  },
  SVC_LIVE_VENUE_SECRET: {
    kind: str,
    default: "svc-venue-credentials",
    doc: "The Secret whose keys (username and password for fix, apiKey and secret for ccxt) a runner workload gets as its venue credentials; the bots service never reads it.",
  },
  SVC_LIVE_BOT_SLUG: {
    kind: str,
    doc: "Set on a runner workload by the bots service: the bot it runs (npm run runner:live refuses to start without it).",
  },
  SVC_LIVE_VERSION: {
    kind: int(0, 1_000_000_000),
    default: "0",
    doc: "Set on a runner workload: the bot version it was deployed with; a runner whose bot moved to another version refuses to start.",
  },
  SVC_LIVE_SPEC_HASH: {
    kind: str,
    doc: "Set on a runner workload: the version's spec hash; checked against the bot and the ApprovedPromotion token at start.",
  },
  SVC_LIVE_STRATEGY_DIGEST: {
    kind: str,
    doc: "Set on a runner workload: the digest of the version's strategy code (empty: a built-in family); checked against the token at start.",
  },
  SVC_LIVE_APPROVED_PROMOTION: {
    kind: str,
    doc: "Set on a runner workload: the ApprovedPromotion token of its version, verified at start.",
    secret: true,
  },
  SVC_LIVE_VENUE_USERNAME: {
    kind: str,
    doc: "A runner's FIX Username (a workload's from the Secret SVC_LIVE_VENUE_SECRET); on the bots service, with the password, it configures the venue DeployBot live and venue_paper trade at (unset: they answer 501 venue_not_configured).",
  },
  SVC_LIVE_VENUE_PASSWORD: {
    kind: str,
    doc: "A runner's FIX Password (a workload's from the Secret SVC_LIVE_VENUE_SECRET; on the bots service, for DeployBot live and venue_paper).",
    secret: true,
  },
  SVC_LIVE_VENUE_API_KEY: {
    kind: str,
    doc: "A ccxt runner's API key (a workload's from the Secret SVC_LIVE_VENUE_SECRET; on the bots service, for DeployBot live and venue_paper).",
    secret: true,
  },
  SVC_LIVE_VENUE_API_SECRET: {
    kind: str,
    doc: "A ccxt runner's API secret (a workload's from the Secret SVC_LIVE_VENUE_SECRET; on the bots service, for DeployBot live and venue_paper).",
    secret: true,
  },
  SVC_LIVE_BAR_MS: {
    kind: int(100, 86_400_000),
    default: "60000",
    doc: "A runner's bar (a workload's, or DeployBot live/venue_paper in the bots service): the venue's trades are folded into bars of this many milliseconds, and the strategy decides at each close.",
  },
  SVC_BACKTEST_WORKERS: {
    kind: int(1, 64),
    default: "2",
    doc: "Backtests and compliance runs one bots process runs at once; the others wait their turn in the queue, in order and fairly between bots.",
  },
  SVC_STRATEGY_MEMORY_MB: {
    kind: int(16, 65_536),
    default: "256",
    doc: "Heap (MiB) of a strategy's sandboxed process (V8's old space): a strategy that needs more ends its run failed with strategy_memory.",
  },
  SVC_STRATEGY_ADDRESS_SPACE_MB: {
    kind: int(1_296, 1_048_576),
    default: "2048",
    doc: "Address space (MiB, RLIMIT_AS) of a strategy's sandboxed process: bounds array buffers beside the heap; node reserves about 1,280 MiB at start, so it must exceed SVC_STRATEGY_MEMORY_MB by that much.",
  },
  SVC_STRATEGY_CALL_TIMEOUT_MS: {
    kind: int(1, 3_600_000),
    default: "10000",
    doc: "Wall-clock time (ms) of one call into a strategy (init, a block of bars, a snapshot, onStop): past it the run ends failed with strategy_timeout.",
  },
  SVC_STRATEGY_SLOW_CALL_MS: {
    kind: int(1, 3_600_000),
    default: "250",
    doc: "A strategy call running longer than this (ms) has its process reniced to 19 for the rest of the run, so a spinning strategy yields the CPU to other runs until its call's limit ends it.",
  },
  SVC_STRATEGY_RUN_CPU_SECONDS: {
    kind: int(1, 604_800),
    default: "3600",
    doc: "CPU seconds (RLIMIT_CPU) of a strategy's whole run: past them the run ends failed with strategy_timeout.",
  },
  SVC_STRATEGY_LOG_LINES: {
    kind: int(1, 1_000_000),
    default: "1000",
    doc: "Log lines a run keeps from its strategy (ctx.log); lines past it are counted, not kept.",
  },
  SVC_STRATEGY_LOG_LINE_CHARS: {
    kind: int(1, 100_000),
    default: "1000",
    doc: "Characters kept of one strategy log line's message (and of each field's string value).",
  },
  SVC_STRATEGY_MAX_ANSWER_BYTES: {
    kind: int(1_024, 1_073_741_824),
    default: "16777216",
    doc: "Largest answer (bytes) the platform reads from a strategy's sandboxed process in one call: past it the run ends failed with strategy_error.",
  },
  SVC_MODEL_MAX_BYTES: {
    kind: int(1_024, 1_073_741_824),
    default: "16777216",
    doc: "Largest ONNX model (bytes) POST /models keeps (413 model_too_large past it); the JSON body carrying it in base64 is bounded by SVC_BODY_LIMIT_BYTES as well.",
  },
  SVC_MODEL_LOAD_TIMEOUT_MS: {
    kind: int(100, 600_000),
    default: "20000",
    doc: "Wall-clock time (ms) the model process may take to load one ONNX model (when it is uploaded, and when a run starts): past it the upload is refused (400 invalid_model) or the run ends failed.",
  },
  SVC_MODEL_CALL_TIMEOUT_MS: {
    kind: int(1, 600_000),
    default: "2000",
    doc: "Wall-clock time (ms) of one model inference a strategy asks for (ctx.model(name).run): past it the model process is killed and the run ends failed with strategy_timeout naming the model.",
  },
  SVC_MODEL_ADDRESS_SPACE_MB: {
    kind: int(1_536, 1_048_576),
    default: "4096",
    doc: "Address space (RLIMIT_AS, MiB) of the process that runs a run's ONNX models, outside the strategy's sandbox (node reserves about 1.2 GiB at start): a model that needs more fails to load or to run, and only its run fails.",
  },
  SVC_BACKTEST_WORKER_MEMORY_MB: {
    kind: int(64, 65_536),
    default: "1024",
    doc: "Heap (old generation, MiB) of each backtest worker thread: a run that needs more ends failed with an out-of-memory error, and only that run; the process and the other runs go on.",
  },
  SVC_SWEEP_MAX_COMBINATIONS: {
    kind: int(1, 1_000_000),
    default: "1000",
    doc: "Most backtests one parameter sweep may run (its combinations, times its walk-forward folds, plus one out-of-sample run per fold); past it POST /bots/{ref}/sweeps answers 400 sweep_too_large naming the size and this bound.",
  },
  SVC_BACKTEST_QUEUE_MAX: {
    kind: int(1, 1_000_000),
    default: "1000",
    doc: "Accepted backtests that may wait for a worker, all processes together; past it a new one is refused up front (429 backtest_queue_full with Retry-After), never accepted and then failed.",
  },
  SVC_KV_TIMEOUT_MS: {
    kind: int(50, 60_000),
    default: "1000",
    doc: "Deadline of every key-value (Redis) command; a hung Redis answers as unreachable after it.",
  },
  SVC_DB_TIMEOUT_MS: {
    kind: int(100, 600_000),
    default: "10000",
    doc: "Deadline of every Postgres query and of taking a connection; a hung Postgres answers as unavailable after it.",
  },
  SVC_BUS_TIMEOUT_MS: {
    kind: int(100, 60_000),
    default: "2000",
    doc: "Deadline of a NATS publish; NATS pings every SVC_BUS_TIMEOUT_MS and a silent server counts as disconnected after two missed pings.",
  },
  SVC_LLM_BASE_URL: {
    kind: url("http:", "https:"),
    doc: "OpenAI-compatible chat-completions endpoint (with tool calling) research bots chat through, e.g. https://api.openai.com/v1 or the stand-in's http://127.0.0.1:8089/v1 (npm run llm). Unset: chat answers 412 llm_not_configured.",
  },
  SVC_LLM_MODEL: {
    kind: str,
    doc: "Model name sent to SVC_LLM_BASE_URL (e.g. gpt-4o-mini; the stand-in takes any).",
  },
  SVC_LLM_API_KEY: {
    kind: str,
    doc: "API key for SVC_LLM_BASE_URL (from a secrets platform); unset for a local server that needs none.",
    secret: true,
  },
  SVC_LLM_TIMEOUT_MS: {
    kind: int(1_000, 600_000),
    default: "60000",
    doc: "Deadline of one model call, whole stream included; a model that hangs ends the chat with 504 llm_timeout (or an error event).",
  },
  SVC_CHAT_AGENT_CLIENT_ID: {
    kind: str,
    doc: "The research agent's own client (client credentials) at the OIDC provider: its token is the actor token of each RFC 8693 exchange, and its subject (the agent subject) is act.sub of the chat's delegated tokens.",
  },
  SVC_CHAT_AGENT_CLIENT_SECRET: {
    kind: str,
    doc: "Secret of SVC_CHAT_AGENT_CLIENT_ID (from a secrets platform).",
    secret: true,
  },
  SVC_MCP_URL: {
    kind: url("http:", "https:"),
    doc: "The platform's MCP endpoint that research chat calls its tools through (the gateway's /mcp). Unset: this process's own gateway (all-in-one).",
  },
  SVC_CHAT_RATE_LIMIT_PER_MINUTE: {
    kind: int(1, 100_000),
    default: "20",
    doc: "Chats one person may start per minute, counted in the key-value store; more answer 429 chat_rate_limited.",
  },
  SVC_CHAT_TOKEN_BUDGET: {
    kind: int(100, 100_000_000),
    default: "200000",
    doc: "Model tokens one conversation may use in all; past it, chat answers 429 chat_token_budget_exhausted (start a new conversation).",
  },
} as const satisfies Record<string, SettingDef>;

export type SettingName = keyof typeof SETTINGS;

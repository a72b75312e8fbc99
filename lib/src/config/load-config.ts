import { AUTH_DEFAULTS, type AuthSettings } from "../auth/settings.js";
import { SETTINGS, type SettingDef, type SettingName } from "./settings.js";

/** How log lines are written: see SVC_LOG_FORMAT. */
export type LogFormat = "auto" | "json" | "pretty";

/** Raised once at start, listing every bad variable so an operator fixes them in one go. */
export class ConfigError extends Error {
  readonly code = "invalid_config";
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

/** The parsed settings, typed per kind. */
export interface Config {
  host: string;
  port: number;
  grpcPort: number;
  databaseUrl?: string;
  dataDir: string;
  /** The embedded PGlite's template folder (undefined: off) and shared_buffers (SVC_PGLITE_*). */
  pglite: { templateDir?: string; sharedBuffersMb: number };
  natsUrl?: string;
  natsNamespace: string;
  redisUrl?: string;
  logLevel: string;
  logFormat: LogFormat;
  bodyLimitBytes: number;
  /** Largest CSV an uploaded data set may be (SVC_DATASET_MAX_BYTES). */
  datasetMaxBytes: number;
  /** URL prefixes a data set may be imported from (SVC_DATASET_IMPORT_URL_PREFIXES). */
  datasetImportUrlPrefixes: string[];
  /** Largest file imported from a URL (SVC_DATASET_IMPORT_MAX_BYTES). */
  datasetImportMaxBytes: number;
  /** ccxt exchanges a pull may fetch from, each with its base URL override or none (SVC_DATA_PULL_EXCHANGES). */
  dataPullExchanges: Record<string, string | undefined>;
  serviceUrls: Partial<
    Record<"bots" | "promotion" | "killswitch" | "compliance" | "identity", string>
  >;
  /** The auth kernel's settings, exactly as `createAuthInterceptor` takes them. */
  auth: AuthSettings;
  agentBroker: { clientId?: string; clientSecret?: string; delegationTtlSeconds: number };
  login: { clientId: string; clientSecret?: string; stateKey?: string; publicUrl?: string };
  licenseLease: { privateKeyPem?: string; privateKeyPath?: string; retiredPublicKeysPem?: string };
  /** The credentials vault's key-encryption keys (SVC_VAULT_*). */
  vault: { kek?: string; previousKek?: string };
  /** Outbound webhooks (SVC_WEBHOOK_*). */
  webhooks: {
    allowHttpLoopback: boolean;
    deliveryTimeoutMs: number;
    maxAttempts: number;
    retryBaseMs: number;
    retryMaxMs: number;
    pollIntervalMs: number;
  };
  /** The audit trail's checkpoints (SVC_AUDIT_CHECKPOINT_*). */
  auditCheckpoints: {
    privateKeyPem?: string;
    trustedPublicKeysPem?: string;
    intervalMs: number;
    retentionDays: number;
  };
  /** The holder side: what the license daemon and the license gate of a self-hosted install need. */
  licenseHolder: {
    serverUrl?: string;
    deploymentId?: string;
    dir: string;
    pinnedKeyIds: string[];
    checkIntervalS: number;
    /** How often the license gate re-reads the lease folder (SVC_LICENSE_REFRESH_MS). */
    refreshMs: number;
  };
  flags: {
    promotionLabEvidenceEnforce: boolean;
    trialLedgerNEnforce: boolean;
    /** Fewest trials of a bot before its promotion is gated on the ledger (SVC_TRIAL_LEDGER_MIN_TRIALS). */
    trialLedgerMinTrials: number;
    /** Promotion kinds whose submitter may waive the human approval (never an agent). */
    skipHumanKinds: string[];
    approvalExpiryEnforcementEnabled: boolean;
    approvalTtlSeconds: number;
    licenseEnforcementEnabled: boolean;
    licenseRegistryEnforced: boolean;
  };
  killSwitchPollIntervalS: number;
  /** The drill's bounds in seconds (SVC_KILLSWITCH_DRILL_*): Draining, Stopped for high-frequency bots, Stopped for others. */
  drillBoundsS: { draining: number; stoppedHighFrequency: number; stopped: number };
  runnerLeaseS: number;
  /** What the bots service runs each Bot resource as (SVC_RUNNER_*), and the venue it trades on. */
  runnerWorkloads: {
    enabled: boolean;
    image: string;
    runtimeClassName: string;
    mode: "paper" | "live";
    venue: { adapter: "fix" | "ccxt"; host: string; port: number };
    credentialsSecret: string;
  };
  /** What a runner workload runs (SVC_LIVE_*, set on its pod by the bots service). */
  liveWorkload: {
    slug: string | undefined;
    version: number;
    specHash: string;
    strategyDigest: string;
    approvedPromotion: string;
    barMs: number;
    credentials: { username: string; password: string; apiKey: string; apiSecret: string };
  };
  /** Backtests (and compliance runs) run at once by one process, and accepted ones that may wait. */
  backtests: {
    workers: number;
    queueMax: number;
    workerMemoryMb: number;
    /** Most backtests of one sweep (SVC_SWEEP_MAX_COMBINATIONS). */
    sweepMaxRuns: number;
  };
  /** Milliseconds between two sweeps of overdue promotion requests (SVC_PROMOTION_SWEEP_INTERVAL_MS). */
  promotionSweepIntervalMs: number;
  /** Deadlines of the calls to each store, in milliseconds. */
  timeouts: { kvMs: number; dbMs: number; busMs: number };
  promotionTokens: { signingKeyPem?: string; publicKeyPem?: string };
  kubeApiUrl?: string;
  kubeNamespace: string;
  kubeToken?: string;
  kubeTimeoutMs: number;
  runners: "in-process" | "external";
  /** Research chat: the model (SVC_LLM_*), the agent's client, the MCP endpoint and the limits. */
  chat: {
    llm: { baseUrl?: string; model?: string; apiKey?: string; timeoutMs: number };
    agentClientId?: string;
    agentClientSecret?: string;
    mcpUrl?: string;
    ratePerMinute: number;
    tokenBudget: number;
  };
  /** This service's client credentials for calling its peers (SVC_SERVICE_CLIENT_*). */
  serviceIdentity: { clientId?: string; clientSecret?: string };
  /** Traces (SVC_OTLP_*) and the Prometheus endpoint (SVC_METRICS_PORT) of this process. */
  telemetry: {
    otlpEndpoint?: string;
    otlpProtocol: "http/protobuf" | "http/json";
    metricsPort?: number;
  };
}

type Raw = Partial<Record<SettingName, string | number | boolean>>;

/**
 * Read by the `svc` command, not by the platform: exported in the shell that also starts the
 * platform, they must not stop it.
 */
const CLIENT_VARIABLES = new Set(["SVC_URL", "SVC_API_URL", "SVC_TOKEN"]);

/**
 * Parses and validates every SVC_* variable once. Unknown SVC_* names are errors too: a typo in a
 * security flag must not silently leave the default in force.
 *
 * @example const config = loadConfig(process.env);
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const problems: string[] = [];
  const raw: Raw = {};
  for (const name of Object.keys(env)) {
    if (
      name.startsWith("SVC_") &&
      !name.startsWith("SVC_TEST_") &&
      !CLIENT_VARIABLES.has(name) &&
      !(name in SETTINGS)
    ) {
      problems.push(`${name} is not a known setting (see the configuration table in README.md)`);
    }
  }
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, SettingDef][]) {
    const given = env[name];
    const value = given === undefined || given === "" ? def.default : given;
    if (value === undefined) continue;
    const parsed = parseValue(name, def, value);
    if (typeof parsed === "object") problems.push(parsed.problem);
    else raw[name] = parsed;
  }
  const config = assemble(raw);
  problems.push(...crossCheck(config));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function parseValue(
  name: string,
  def: SettingDef,
  value: string,
): string | number | boolean | { problem: string } {
  const kind = def.kind;
  const shown = def.secret ? "(hidden)" : JSON.stringify(value);
  switch (kind.type) {
    case "string":
      return value;
    case "int": {
      const n = Number(value);
      if (!/^-?\d+$/.test(value.trim()) || n < kind.min || n > kind.max) {
        return {
          problem: `${name}=${shown} must be a whole number from ${kind.min} to ${kind.max}`,
        };
      }
      return n;
    }
    case "bool": {
      const v = value.trim().toLowerCase();
      if (["true", "1", "yes", "on"].includes(v)) return true;
      if (["false", "0", "no", "off"].includes(v)) return false;
      return { problem: `${name}=${shown} must be true or false` };
    }
    case "enum":
      if (!kind.values.includes(value))
        return { problem: `${name}=${shown} must be one of ${kind.values.join(", ")}` };
      return value;
    case "url": {
      try {
        const u = new URL(value);
        if (!kind.protocols.includes(u.protocol)) {
          return {
            problem: `${name}=${shown} must be a URL starting with ${kind.protocols.map((p) => `${p}//`).join(" or ")}`,
          };
        }
        return value;
      } catch {
        return { problem: `${name}=${shown} is not a valid URL` };
      }
    }
  }
}

function assemble(r: Raw): Config {
  const s = (n: SettingName) => r[n] as string | undefined;
  const i = (n: SettingName) => r[n] as number;
  const b = (n: SettingName) => r[n] === true;
  const audience = s("SVC_AUTH_OIDC_AUDIENCE");
  return {
    host: s("SVC_HOST")!,
    port: i("SVC_PORT"),
    grpcPort: i("SVC_GRPC_PORT"),
    databaseUrl: s("SVC_DATABASE_URL"),
    dataDir: s("SVC_DATA_DIR")!,
    pglite: {
      templateDir:
        s("SVC_PGLITE_TEMPLATE_DIR") === "off" ? undefined : s("SVC_PGLITE_TEMPLATE_DIR"),
      sharedBuffersMb: i("SVC_PGLITE_SHARED_BUFFERS_MB"),
    },
    natsUrl: s("SVC_NATS_URL"),
    natsNamespace: s("SVC_NATS_NAMESPACE")!,
    redisUrl: s("SVC_REDIS_URL"),
    logLevel: s("SVC_LOG_LEVEL")!,
    logFormat: s("SVC_LOG_FORMAT") as LogFormat,
    bodyLimitBytes: i("SVC_BODY_LIMIT_BYTES"),
    datasetMaxBytes: i("SVC_DATASET_MAX_BYTES"),
    datasetImportUrlPrefixes: listOf(s("SVC_DATASET_IMPORT_URL_PREFIXES")),
    datasetImportMaxBytes: i("SVC_DATASET_IMPORT_MAX_BYTES"),
    dataPullExchanges: Object.fromEntries(
      listOf(s("SVC_DATA_PULL_EXCHANGES")).map((e) => {
        const at = e.indexOf("=");
        return at < 0 ? [e, undefined] : [e.slice(0, at), e.slice(at + 1)];
      }),
    ),
    serviceUrls: {
      bots: s("SVC_BOTS_URL"),
      promotion: s("SVC_PROMOTION_URL"),
      killswitch: s("SVC_KILLSWITCH_URL"),
      compliance: s("SVC_COMPLIANCE_URL"),
      identity: s("SVC_IDENTITY_URL"),
    },
    auth: {
      ...AUTH_DEFAULTS,
      algorithms: [...AUTH_DEFAULTS.algorithms],
      provider: s("SVC_AUTH_PROVIDER") as "local" | "oidc",
      issuer: s("SVC_AUTH_OIDC_ISSUER"),
      audience,
      jwksUri: s("SVC_AUTH_OIDC_JWKS_URI"),
      claimsNamespace: s("SVC_AUTH_CLAIMS_NAMESPACE")!,
      enforce: s("SVC_AUTH_ENFORCE") as "strict" | "permissive",
      m2mEnabled: b("SVC_AUTH_M2M_ENABLED"),
      m2mAudience: s("SVC_AUTH_M2M_AUDIENCE") ?? audience,
      agentTokensEnabled: b("SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED"),
    },
    agentBroker: {
      clientId: s("SVC_AUTH_AGENT_BROKER_CLIENT_ID"),
      clientSecret: s("SVC_AUTH_AGENT_BROKER_CLIENT_SECRET"),
      delegationTtlSeconds: i("SVC_AUTH_AGENT_DELEGATION_TTL_SECONDS"),
    },
    login: {
      clientId: s("SVC_AUTH_LOGIN_CLIENT_ID")!,
      clientSecret: s("SVC_AUTH_LOGIN_CLIENT_SECRET"),
      stateKey: s("SVC_AUTH_LOGIN_STATE_KEY"),
      publicUrl: s("SVC_PUBLIC_URL"),
    },
    licenseLease: {
      privateKeyPem: s("SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM"),
      privateKeyPath: s("SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PATH"),
      retiredPublicKeysPem: s("SVC_AUTH_LICENSE_LEASE_RETIRED_PUBLIC_KEYS_PEM"),
    },
    vault: { kek: s("SVC_VAULT_KEK"), previousKek: s("SVC_VAULT_PREVIOUS_KEK") },
    webhooks: {
      allowHttpLoopback: b("SVC_WEBHOOK_ALLOW_HTTP_LOOPBACK"),
      deliveryTimeoutMs: i("SVC_WEBHOOK_DELIVERY_TIMEOUT_MS"),
      maxAttempts: i("SVC_WEBHOOK_MAX_ATTEMPTS"),
      retryBaseMs: i("SVC_WEBHOOK_RETRY_BASE_MS"),
      retryMaxMs: i("SVC_WEBHOOK_RETRY_MAX_MS"),
      pollIntervalMs: i("SVC_WEBHOOK_POLL_INTERVAL_MS"),
    },
    auditCheckpoints: {
      privateKeyPem: s("SVC_AUDIT_CHECKPOINT_PRIVATE_KEY_PEM"),
      trustedPublicKeysPem: s("SVC_AUDIT_CHECKPOINT_TRUSTED_PUBLIC_KEYS_PEM"),
      intervalMs: i("SVC_AUDIT_CHECKPOINT_INTERVAL_MS"),
      retentionDays: i("SVC_AUDIT_CHECKPOINT_RETENTION_DAYS"),
    },
    licenseHolder: {
      serverUrl: s("SVC_LICENSE_SERVER_URL"),
      deploymentId: s("SVC_LICENSE_DEPLOYMENT_ID"),
      dir: s("SVC_LICENSE_DIR")!,
      pinnedKeyIds: (s("SVC_LICENSE_PINNED_KEY_IDS") ?? "")
        .split(",")
        .map((k) => k.trim())
        .filter(Boolean),
      checkIntervalS: i("SVC_LICENSE_CHECK_INTERVAL_S"),
      refreshMs: i("SVC_LICENSE_REFRESH_MS"),
    },
    flags: {
      promotionLabEvidenceEnforce: b("SVC_PROMOTION_LAB_EVIDENCE_ENFORCE"),
      trialLedgerNEnforce: b("SVC_TRIAL_LEDGER_N_ENFORCE"),
      trialLedgerMinTrials: i("SVC_TRIAL_LEDGER_MIN_TRIALS"),
      skipHumanKinds: (s("SVC_PROMOTION_SKIP_HUMAN_KINDS") ?? "")
        .split(",")
        .map((k) => k.trim())
        .filter(Boolean),
      approvalExpiryEnforcementEnabled: b("SVC_APPROVAL_EXPIRY_ENFORCEMENT_ENABLED"),
      approvalTtlSeconds: i("SVC_APPROVAL_TTL_SECONDS"),
      licenseEnforcementEnabled: b("SVC_LICENSE_ENFORCEMENT_ENABLED"),
      licenseRegistryEnforced: b("SVC_LICENSE_REGISTRY_ENFORCED"),
    },
    killSwitchPollIntervalS: i("SVC_KILLSWITCH_POLL_INTERVAL_S"),
    drillBoundsS: {
      draining: i("SVC_KILLSWITCH_DRILL_DRAINING_S"),
      stoppedHighFrequency: i("SVC_KILLSWITCH_DRILL_STOPPED_HF_S"),
      stopped: i("SVC_KILLSWITCH_DRILL_STOPPED_S"),
    },
    runnerLeaseS: i("SVC_RUNNER_LEASE_S"),
    runnerWorkloads: {
      enabled: s("SVC_RUNNER_WORKLOADS") === "kubernetes",
      image: s("SVC_RUNNER_IMAGE") ?? "svc-platform",
      runtimeClassName: s("SVC_RUNNER_RUNTIME_CLASS") ?? "",
      mode: s("SVC_LIVE_MODE") as "paper" | "live",
      venue: {
        adapter: s("SVC_LIVE_VENUE") as "fix" | "ccxt",
        host: s("SVC_LIVE_VENUE_HOST") ?? "127.0.0.1",
        port: i("SVC_LIVE_VENUE_PORT"),
      },
      credentialsSecret: s("SVC_LIVE_VENUE_SECRET") ?? "",
    },
    liveWorkload: {
      slug: s("SVC_LIVE_BOT_SLUG"),
      version: i("SVC_LIVE_VERSION"),
      specHash: s("SVC_LIVE_SPEC_HASH") ?? "",
      strategyDigest: s("SVC_LIVE_STRATEGY_DIGEST") ?? "",
      approvedPromotion: s("SVC_LIVE_APPROVED_PROMOTION") ?? "",
      barMs: i("SVC_LIVE_BAR_MS"),
      credentials: {
        username: s("SVC_LIVE_VENUE_USERNAME") ?? "",
        password: s("SVC_LIVE_VENUE_PASSWORD") ?? "",
        apiKey: s("SVC_LIVE_VENUE_API_KEY") ?? "",
        apiSecret: s("SVC_LIVE_VENUE_API_SECRET") ?? "",
      },
    },
    backtests: {
      workers: i("SVC_BACKTEST_WORKERS"),
      queueMax: i("SVC_BACKTEST_QUEUE_MAX"),
      workerMemoryMb: i("SVC_BACKTEST_WORKER_MEMORY_MB"),
      sweepMaxRuns: i("SVC_SWEEP_MAX_COMBINATIONS"),
    },
    promotionSweepIntervalMs: i("SVC_PROMOTION_SWEEP_INTERVAL_MS"),
    timeouts: {
      kvMs: i("SVC_KV_TIMEOUT_MS"),
      dbMs: i("SVC_DB_TIMEOUT_MS"),
      busMs: i("SVC_BUS_TIMEOUT_MS"),
    },
    promotionTokens: {
      signingKeyPem: s("SVC_PROMOTION_SIGNING_KEY_PEM"),
      publicKeyPem: s("SVC_PROMOTION_PUBLIC_KEY_PEM"),
    },
    kubeApiUrl: s("SVC_KUBE_API_URL"),
    kubeNamespace: s("SVC_KUBE_NAMESPACE")!,
    kubeToken: s("SVC_KUBE_TOKEN"),
    kubeTimeoutMs: i("SVC_KUBE_TIMEOUT_MS"),
    runners: s("SVC_RUNNERS") as "in-process" | "external",
    chat: {
      llm: {
        baseUrl: s("SVC_LLM_BASE_URL"),
        model: s("SVC_LLM_MODEL"),
        apiKey: s("SVC_LLM_API_KEY"),
        timeoutMs: i("SVC_LLM_TIMEOUT_MS"),
      },
      agentClientId: s("SVC_CHAT_AGENT_CLIENT_ID"),
      agentClientSecret: s("SVC_CHAT_AGENT_CLIENT_SECRET"),
      mcpUrl: s("SVC_MCP_URL"),
      ratePerMinute: i("SVC_CHAT_RATE_LIMIT_PER_MINUTE"),
      tokenBudget: i("SVC_CHAT_TOKEN_BUDGET"),
    },
    serviceIdentity: {
      clientId: s("SVC_SERVICE_CLIENT_ID"),
      clientSecret: s("SVC_SERVICE_CLIENT_SECRET"),
    },
    telemetry: {
      otlpEndpoint: s("SVC_OTLP_ENDPOINT"),
      otlpProtocol: s("SVC_OTLP_PROTOCOL") as "http/protobuf" | "http/json",
      metricsPort: r.SVC_METRICS_PORT === undefined ? undefined : i("SVC_METRICS_PORT"),
    },
  };
}

/** Rules that span several variables. */
function crossCheck(c: Config): string[] {
  const problems: string[] = [];
  if (c.auth.provider === "oidc") {
    if (!c.auth.issuer)
      problems.push("SVC_AUTH_OIDC_ISSUER is required when SVC_AUTH_PROVIDER=oidc");
    if (!c.auth.audience)
      problems.push("SVC_AUTH_OIDC_AUDIENCE is required when SVC_AUTH_PROVIDER=oidc");
  }
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(c.natsNamespace))
    problems.push(
      `SVC_NATS_NAMESPACE=${JSON.stringify(c.natsNamespace)} must be lower-case letters, digits and dashes, starting with a letter`,
    );
  if (!c.auth.claimsNamespace.endsWith("/")) {
    problems.push(
      `SVC_AUTH_CLAIMS_NAMESPACE=${JSON.stringify(c.auth.claimsNamespace)} must end with a slash`,
    );
  }
  for (const kind of c.flags.skipHumanKinds) {
    if (!["strategy", "drl_policy", "allocation"].includes(kind))
      problems.push(
        `SVC_PROMOTION_SKIP_HUMAN_KINDS names "${kind}"; the kinds are strategy, drl_policy, allocation`,
      );
  }
  if (c.flags.licenseEnforcementEnabled) {
    // Enforcement with nothing to verify against would refuse every licensed route for a reason
    // the operator can only find in a log: refuse to start instead, naming what is missing.
    if (!c.licenseHolder.deploymentId)
      problems.push(
        "SVC_LICENSE_DEPLOYMENT_ID is required when SVC_LICENSE_ENFORCEMENT_ENABLED=true (the gate refuses a lease for another deployment)",
      );
    if (c.licenseHolder.pinnedKeyIds.length === 0)
      problems.push(
        "SVC_LICENSE_PINNED_KEY_IDS is required when SVC_LICENSE_ENFORCEMENT_ENABLED=true (the gate trusts only pinned signing keys)",
      );
  }
  if (c.licenseLease.privateKeyPem && c.licenseLease.privateKeyPath) {
    problems.push(
      "set only one of SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM and SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PATH",
    );
  }
  return problems;
}

/** A comma-separated setting's entries, trimmed, empty ones dropped. */
function listOf(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
}

import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import { exportJWK, generateKeyPair } from "jose";
import { MFA_ACR } from "../../../deploy/idp/post-login.js";
import { TOKEN_EXCHANGE_GRANT } from "../../../deploy/idp/token-exchange.js";
import { devClients, PLATFORM_SERVICES, type DevClients, type MachineClient } from "./clients.js";
import { interactionRoutes } from "./interactions.js";
import { runPostLogin, type ActionCache } from "./post-login-bridge.js";
import { SecondFactor } from "./second-factor.js";
import { registerTokenExchange } from "./token-exchange-grant.js";
import { defaultUsers, type DevUser } from "./users.js";

export interface DevIdpOptions {
  /** 0 (default) picks a free port. The provider listens on 127.0.0.1 only. */
  port?: number;
  /** The platform's API audience (SVC_AUTH_OIDC_AUDIENCE): user and delegated tokens carry it. */
  apiAudience: string;
  /** Machine tokens of the sync routes (SVC_AUTH_M2M_AUDIENCE); defaults to the API audience. */
  m2mAudience?: string;
  /** SVC_AUTH_CLAIMS_NAMESPACE of the platform. */
  claimsNamespace: string;
  /** The platform the post-login action calls; without it the action fails open (no claims). */
  apiUrl?: string;
  users?: DevUser[];
  /** Where a login may return besides the platform's /auth/callback. */
  redirectUris?: string[];
  delegationTtlSeconds?: number;
  accessTokenTtlSeconds?: number;
  log?: (message: string, detail?: unknown) => void;
}

/** A running development provider. */
export interface DevIdp {
  issuer: string;
  tokenEndpoint: string;
  authorizationEndpoint: string;
  jwksUri: string;
  users: readonly DevUser[];
  clients: DevClients;
  /** Points the post-login action at the platform once it listens. */
  setApiUrl(url: string): void;
  close(): Promise<void>;
}

const LOOPBACK = "127.0.0.1";

/**
 * Starts `oidc-provider` as the platform's development identity provider: authorization code
 * with PKCE for people (password, then a TOTP code when MFA is asked for), client credentials for
 * machines, RFC 8693 token exchange for the agent broker, JWT access tokens for the API audience
 * with `permissions`, `auth_time`, `amr`, `acr` and the claims the post-login action set.
 *
 * @example const idp = await startDevIdp({ apiAudience: "https://api.svc.local", claimsNamespace: "https://svc.example/claims/" });
 */
export async function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  const log = options.log ?? (() => {});
  const users = options.users ?? defaultUsers();
  const m2mAudience = options.m2mAudience ?? options.apiAudience;
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, LOOPBACK, resolve));
  const issuer = `http://${LOOPBACK}:${(server.address() as AddressInfo).port}`;
  let apiUrl = options.apiUrl ?? "";

  const clients = devClients([
    `http://${LOOPBACK}/auth/callback`,
    "http://localhost/auth/callback",
    ...(options.redirectUris ?? []),
  ]);
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = `dev-${randomBytes(4).toString("hex")}`;
  const signingJwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };

  const claimsBySubject = new Map<string, Record<string, unknown>>();
  const actionCache: ActionCache = new Map();
  const machine = (c: MachineClient) => ({
    client_id: c.clientId,
    client_secret: c.clientSecret,
    // Token exchange is open at the protocol layer for every machine client: the profile decides
    // who may use it (svc_grants, svc_profiles), so a refusal is the spec's unauthorized_client.
    grant_types: ["client_credentials", TOKEN_EXCHANGE_GRANT],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: "client_secret_post" as const,
    svc_grants: c.grants,
    svc_profiles: c.profiles,
  });
  const resourceServer = (audience: string) => ({
    audience,
    scope: [...new Set(users.flatMap((u) => u.permissions))].join(" "),
    accessTokenTTL: options.accessTokenTtlSeconds ?? 3600,
    accessTokenFormat: "jwt" as const,
    jwt: { sign: { alg: "RS256" as const } },
  });

  const configuration: Configuration = {
    clients: [
      {
        client_id: clients.login.clientId,
        // Native: a loopback redirect matches on any port (RFC 8252 7.3), so the platform's
        // /auth/callback and a test's listener need no registration of their port.
        application_type: "native",
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code"],
        response_types: ["code"],
        redirect_uris: clients.login.redirectUris,
      },
      machine(clients.postLoginHook),
      machine(clients.agentBroker),
      machine(clients.agent),
      machine(clients.machine),
      ...Object.values(clients.services).map(machine),
    ],
    extraClientMetadata: { properties: ["svc_grants", "svc_profiles"] },
    jwks: { keys: [signingJwk] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    routes: { jwks: "/.well-known/jwks.json" },
    acrValues: [MFA_ACR],
    claims: { openid: ["sub"], email: ["email"] },
    async findAccount(_ctx, sub) {
      const user = users.find((u) => u.sub === sub);
      if (!user) return undefined;
      return { accountId: sub, claims: async () => ({ sub, email: user.email }) };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.apiAudience,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, indicator, client) {
          if (indicator === options.apiAudience || indicator === m2mAudience)
            return resourceServer(indicator);
          // A service's audience is for the platform's own services only: no scopes, the callee
          // reads who called from the client id and the proto's callers.
          const service = /^urn:svc:service:([a-z]+)$/.exec(indicator)?.[1];
          if (
            service &&
            (PLATFORM_SERVICES as readonly string[]).includes(service) &&
            client.clientId.startsWith("svc-service-")
          )
            return { ...resourceServer(indicator), scope: "" };
          throw new errors.InvalidTarget(`unknown resource ${indicator}`);
        },
      },
    },
    pkce: { required: () => true },
    ttl: {
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      IdToken: 3600,
      ClientCredentials: options.accessTokenTtlSeconds ?? 3600,
      AccessToken: options.accessTokenTtlSeconds ?? 3600,
    },
    async extraTokenClaims(ctx: KoaContextWithOIDC, token) {
      if (token.kind === "ClientCredentials") return { gty: "client-credentials" };
      const sub = "accountId" in token ? token.accountId : undefined;
      const user = users.find((u) => u.sub === sub);
      if (!user) return undefined;
      // auth_time, amr and acr belong to the login the code came from (RFC 9470 reads them here).
      const code = ctx.oidc.entities.AuthorizationCode;
      return {
        permissions: user.permissions,
        ...(code?.authTime !== undefined ? { auth_time: code.authTime } : {}),
        ...(code?.amr ? { amr: code.amr } : {}),
        ...(code?.acr ? { acr: code.acr } : {}),
        ...claimsBySubject.get(user.sub),
      };
    },
  };

  const provider = new Provider(issuer, configuration);
  registerTokenExchange(
    provider,
    { kid, privateKey, publicKey },
    {
      issuer,
      audience: options.apiAudience,
      ttlSeconds: options.delegationTtlSeconds ?? 300,
      claimsNamespace: options.claimsNamespace,
      // The RBAC as it is at the exchange, not as the subject token remembers it.
      permissionsOf: (sub) => users.find((u) => u.sub === sub)?.permissions,
    },
  );
  const tokenEndpoint = `${issuer}/token`;
  const interactions = interactionRoutes({
    provider,
    users,
    secondFactor: new SecondFactor(),
    rememberClaims: (sub, claims) => claimsBySubject.set(sub, claims),
    postLogin: (user, methods, acrValues) =>
      runPostLogin(
        user,
        { methods, acrValues },
        {
          apiUrl,
          tokenUrl: tokenEndpoint,
          clientId: clients.postLoginHook.clientId,
          clientSecret: clients.postLoginHook.clientSecret,
          m2mAudience,
          claimsNamespace: options.claimsNamespace,
        },
        actionCache,
        log,
      ),
  });
  const callback = provider.callback();
  server.on("request", (req, res) => {
    interactions(req, res)
      .then((handled) => {
        if (!handled) callback(req, res);
      })
      .catch((err: unknown) => {
        log("interaction failed", { error: (err as Error).message });
        if (!res.headersSent) res.writeHead(400, { "content-type": "text/plain" });
        res.end(`sign-in failed: ${(err as Error).message}`);
      });
  });

  return {
    issuer,
    tokenEndpoint,
    authorizationEndpoint: `${issuer}/auth`,
    jwksUri: `${issuer}/.well-known/jwks.json`,
    users,
    clients,
    setApiUrl: (url) => {
      apiUrl = url;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

import { randomBytes } from "node:crypto";
import { TOKEN_EXCHANGE_GRANT, DELEGATION_PROFILE } from "../../../deploy/idp/token-exchange.js";

/** A machine client of the development provider (client credentials, a secret made at start). */
export interface MachineClient {
  clientId: string;
  clientSecret: string;
  grants: string[];
  /** Token-exchange profiles the client may use (only the agent broker has one). */
  profiles: string[];
}

/** The clients of the development provider, with the secrets made for this run. */
export interface DevClients {
  /** Public browser client (authorization code with PKCE): the console, the CLI and the tests. */
  login: { clientId: string; redirectUris: string[] };
  /** The post-login action's client: machine tokens for the sync routes. */
  postLoginHook: MachineClient;
  /** The agent token broker: client credentials and the svc-agent-delegation exchange. */
  agentBroker: MachineClient;
  /** An agent's own client: its token is the actor token of an exchange (sub agent|...). */
  agent: MachineClient;
  /** A plain machine client (scripts, other services): client credentials only. */
  machine: MachineClient;
  /**
   * Each platform service's own client (svc-service-<service>): machine tokens with the audience
   * of the peer it calls (urn:svc:service:<peer>), for the distributed topology.
   */
  services: Record<PlatformService, MachineClient>;
}

/** The services of the platform, each with its own client in the distributed topology. */
export const PLATFORM_SERVICES = [
  "bots",
  "promotion",
  "killswitch",
  "compliance",
  "identity",
] as const;
export type PlatformService = (typeof PLATFORM_SERVICES)[number];

const secret = () => randomBytes(24).toString("base64url");

/**
 * Makes the clients. `redirectUris` are where a login may return: the platform's
 * `/auth/callback` and, for tests and the CLI, a loopback address they read the code from.
 */
export function devClients(redirectUris: string[], agentSubject = "agent|research"): DevClients {
  return {
    login: { clientId: "svc-console", redirectUris },
    postLoginHook: {
      clientId: "svc-post-login-hook",
      clientSecret: secret(),
      grants: ["client_credentials"],
      profiles: [],
    },
    agentBroker: {
      clientId: "svc-agent-broker",
      clientSecret: secret(),
      grants: ["client_credentials", TOKEN_EXCHANGE_GRANT],
      profiles: [DELEGATION_PROFILE],
    },
    agent: {
      clientId: agentSubject,
      clientSecret: secret(),
      grants: ["client_credentials"],
      profiles: [],
    },
    machine: {
      clientId: "svc-machine",
      clientSecret: secret(),
      grants: ["client_credentials"],
      profiles: [],
    },
    services: Object.fromEntries(
      PLATFORM_SERVICES.map((name) => [
        name,
        {
          clientId: `svc-service-${name}`,
          clientSecret: secret(),
          grants: ["client_credentials"],
          profiles: [],
        },
      ]),
    ) as unknown as Record<PlatformService, MachineClient>,
  };
}

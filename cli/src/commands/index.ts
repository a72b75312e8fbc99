import type { Command } from "commander";
import type { Io } from "../io.js";

type Register = (program: Command, io: Io) => void;

/**
 * The command modules, each with the top-level commands it adds and their one-line summaries.
 * `svc` imports only the module of the command it runs: `svc --help` lists the summaries
 * without loading any (a test holds these summaries to the modules' own).
 */
export const COMMAND_MODULES: Array<{
  /** Each command's name, summary and, for one without subcommands, its arguments in --help. */
  commands: Array<[name: string, summary: string, args?: string]>;
  load: () => Promise<Register>;
}> = [
  {
    commands: [["bots", "list, create, show, update, archive and delete bots"]],
    load: async () => (await import("./bots.js")).registerBots,
  },
  {
    commands: [
      ["strategy", "write, type-check and upload your own strategy code (TypeScript on the SDK)"],
    ],
    load: async () => (await import("./strategy.js")).registerStrategy,
  },
  {
    commands: [
      [
        "backtest",
        "backtest a bot; --watch follows it to the end with a progress bar",
        "[options] <bot>",
      ],
    ],
    load: async () => (await import("./backtest.js")).registerBacktest,
  },
  {
    commands: [["deployments", "a bot's runs: list, show (--watch), results, trades (CSV), logs"]],
    load: async () => (await import("./deployments.js")).registerDeployments,
  },
  {
    commands: [
      ["sweep", "parameter sweeps: a grid or a seeded random search, each combination a trial"],
    ],
    load: async () => (await import("./sweep.js")).registerSweep,
  },
  {
    commands: [
      [
        "promote",
        "ask for a bot version's promotion (another person approves it: four eyes)",
        "[options] <bot>",
      ],
      [
        "approve",
        "approve a promotion request (not your own); prints the ApprovedPromotion token",
        "[options] <request-id>",
      ],
      ["reject", "reject a promotion request, with the reason", "[options] <request-id>"],
      ["approvals", "promotion requests waiting for a person"],
    ],
    load: async () => (await import("./promotion.js")).registerPromotion,
  },
  {
    commands: [["promotion", "promotion requests: list, show, revoke"]],
    load: async () => (await import("./promotion-requests.js")).registerPromotionRequests,
  },
  {
    commands: [["paper", "start, stop, list and watch paper-trading sessions"]],
    load: async () => (await import("./paper.js")).registerPaper,
  },
  {
    commands: [
      ["kill-switch", "engage, release and list kill switches (bot, fleet or platform scope)"],
      ["kill-switches", ""],
    ],
    load: async () => (await import("./kill-switch.js")).registerKillSwitch,
  },
  {
    commands: [
      ["drills", "the quarterly kill-switch drill: start, list, show (--watch), schedule"],
    ],
    load: async () => (await import("./drills.js")).registerDrills,
  },
  {
    commands: [
      [
        "halt-all",
        "the platform switch: call every halt route in parallel (agents, quant agents, paper, bots, RL, workflows)",
        "[options]",
      ],
    ],
    load: async () => (await import("./halt-all.js")).registerHaltAll,
  },
  {
    commands: [["agents", "the agent switches that stop research chats (halt-all engages both)"]],
    load: async () => (await import("./agents.js")).registerAgents,
  },
  {
    commands: [["datasets", "OHLCV datasets that backtests and paper sessions read (csv:NAME)"]],
    load: async () => (await import("./datasets.js")).registerDatasets,
  },
  {
    commands: [["data", "bring market data into the data catalog"]],
    load: async () => (await import("./data.js")).registerData,
  },
  {
    commands: [["models", "upload an ONNX model for a model-driven strategy"]],
    load: async () => (await import("./models.js")).registerModels,
  },
  {
    commands: [
      [
        "conformance",
        "start an RTS 6 conformance run of a bot (--watch follows it)",
        "[options] <bot>",
      ],
      ["stress", "start an RTS 6 stress run of a bot (--watch follows it)", "[options] <bot>"],
      ["compliance-runs", "a bot's conformance and stress runs: list, show (--watch)"],
    ],
    load: async () => (await import("./compliance-runs.js")).registerComplianceRuns,
  },
  {
    commands: [
      [
        "report",
        "the annual validation report (YAML) of a bot, or of the platform without one",
        "[options] [bot]",
      ],
      ["audit", "the audit trail"],
      ["reports", "validation reports due after control changes, signing, and signed reports kept"],
    ],
    load: async () => (await import("./compliance.js")).registerCompliance,
  },
  {
    commands: [
      ["whoami", "who the platform takes you for: subject, org, roles, scopes"],
      [
        "credentials",
        "exchange and broker credentials in the vault: list, add, rotate, delete, rewrap",
      ],
      ["fleets", "a fleet's shared risk limits"],
      ["org", "an organisation's identity-provider group mappings"],
      ["license", "bot runtime licenses"],
      [
        "scale",
        "scale a platform deployment (Kubernetes) to a number of replicas",
        "[options] <deployment>",
      ],
      ["tools", "the data tools agents call over MCP"],
    ],
    load: async () => (await import("./admin.js")).registerAdmin,
  },
  {
    commands: [
      ["webhooks", "webhook subscriptions: signed deliveries of platform events to your URL"],
    ],
    load: async () => (await import("./webhooks.js")).registerWebhooks,
  },
  {
    commands: [
      ["completion", "print a shell completion script: svc completion bash|zsh", "<shell>"],
    ],
    load: async () => (await import("./completion.js")).registerCompletion,
  },
];

import type { Command } from "commander";
import { declareAt } from "../routes/declare.js";
import { contextOf } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { fields, table, when } from "../output.js";
import type { Bot, Items, PromotionRequest } from "../wire.js";

const collect = (value: string, previous: string[]) => [...previous, value];

interface PromoteOptions {
  verdict: string;
  risk: string;
  version?: string;
  requestId?: string;
  kind: string;
  validator?: string;
  finding: string[];
}

export function registerPromotion(program: Command, io: Io): void {
  program
    .command("promote")
    .description("ask for a bot version's promotion (another person approves it: four eyes)")
    .argument("<bot>", "slug or id")
    .requiredOption(
      "--verdict <verdict>",
      "the validation verdict: PASS, PASS_WITH_FINDINGS or FAIL",
    )
    .requiredOption("--risk <decision>", "the risk decision: APPROVE or REJECT")
    .option("--version <n>", "the version to promote (default: the current one)")
    .option("--request-id <id>", "the request's id (default: <slug>-v<version>-<time>)")
    .option("--kind <kind>", "strategy, drl_policy or allocation", "strategy")
    .option("--validator <name>", "who or what validated it")
    .option("--finding <text>", "a validation finding (repeat it)", collect, [])
    .addHelpText(
      "after",
      "\nExample:\n  svc --as alice promote alpha-ma --verdict PASS --risk APPROVE --request-id alpha-1\n",
    )
    .action(async (ref: string, o: PromoteOptions, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const bot = await ctx.api.get<Bot>(`/bots/${encodeURIComponent(ref)}`);
      const version = o.version ? Number(o.version) : bot.current_version;
      if (!Number.isInteger(version) || version < 1)
        throw new CliExit(2, `--version must be a version number, not ${o.version}`);
      const hash =
        version === bot.current_version
          ? bot.spec_hash
          : (
              await ctx.api.all<Items<{ version: number; spec_hash: string }>>(
                `/bots/${encodeURIComponent(ref)}/versions`,
              )
            ).items.find((v) => v.version === version)?.spec_hash;
      if (!hash) throw new CliExit(1, `bot ${bot.slug} has no version ${version}`);
      const request = await ctx.api.post<PromotionRequest>("/promotion/requests", {
        request_id: o.requestId ?? `${bot.slug}-v${version}-${Date.now().toString(36)}`,
        kind: o.kind,
        artifact: { bot_ref: bot.slug, version, version_hash: hash },
        validation: {
          verdict: o.verdict.toUpperCase(),
          ...(o.validator ? { validator: o.validator } : {}),
          findings: o.finding,
        },
        risk: { decision: o.risk.toUpperCase() },
      });
      ctx.show(request, () => requestText(request));
    });

  program
    .command("approve")
    .description("approve a promotion request (not your own); prints the ApprovedPromotion token")
    .argument("<request-id>", "the promotion request's id")
    .option("--note <text>", "a note kept with the decision")
    .addHelpText(
      "after",
      "\nExample:\n  svc --as bob approve alpha-1 --note 'reviewed the tearsheet'\n",
    )
    .action(async (id: string, o: { note?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const request = await ctx.api.post<PromotionRequest>(
        `/promotion/requests/${encodeURIComponent(id)}/approve`,
        o.note ? { note: o.note } : {},
      );
      ctx.show(request, () => requestText(request));
    });

  program
    .command("reject")
    .description("reject a promotion request, with the reason")
    .argument("<request-id>", "the promotion request's id")
    .requiredOption("--reason <text>", "why (kept with the decision)")
    .addHelpText("after", "\nExample:\n  svc --as bob reject alpha-1 --reason 'PBO too high'\n")
    .action(async (id: string, o: { reason: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const request = await ctx.api.post<PromotionRequest>(
        `/promotion/requests/${encodeURIComponent(id)}/reject`,
        { reason: o.reason },
      );
      ctx.show(request, () => requestText(request));
    });

  program
    .command("approvals")
    .description("promotion requests waiting for a person")
    .action(async (_o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const answer = await ctx.api.all<Items<PromotionRequest>>("/promotion/approvals");
      ctx.show(answer, () =>
        answer.items.length === 0
          ? "no promotion request is waiting\n"
          : table(
              ["REQUEST", "KIND", "BOT", "VERSION", "REQUESTED BY", "CREATED"],
              answer.items.map((r) => [
                r.request_id,
                r.kind,
                r.artifact?.bot_ref,
                r.artifact?.version,
                r.requested_by,
                when(r.created_at),
              ]),
            ),
      );
    });
  declareAt(program, "promote", "POST /promotion/requests", "GET /bots/{bot_ref}/versions");
  declareAt(program, "approve", "POST /promotion/requests/{request_id}/approve");
  declareAt(program, "reject", "POST /promotion/requests/{request_id}/reject");
  declareAt(program, "approvals", "GET /promotion/approvals");
}

function requestText(r: PromotionRequest): string {
  const last = r.decisions.at(-1);
  let text = fields([
    ["request", r.request_id],
    ["status", r.status],
    ["kind", r.kind],
    ["bot", r.artifact ? `${r.artifact.bot_ref} version ${r.artifact.version}` : undefined],
    ["requested by", r.requested_by],
    [
      "decision",
      last ? `${last.action} by ${last.actor}${last.note ? `: ${last.note}` : ""}` : undefined,
    ],
    ["token", r.approved_promotion],
  ]);
  if (r.gates.length > 0)
    text += `\n${table(
      ["GATE", "PASSED", "DETAIL"],
      r.gates.map((g) => [g.name, g.passed ? "yes" : "NO", g.detail]),
    )}`;
  return text;
}

import type { JsonObject } from "@bufbuild/protobuf";
import type { RiskLimits } from "../execution/risk-controls/index.js";

/** One result of a run: what it checks, under which article, expected and observed, the verdict. */
export interface CaseResult {
  name: string;
  article: string;
  expected: string;
  observed: string;
  passed: boolean;
  /** The records the verdict rests on, stored with it. */
  evidence: JsonObject;
}

/** What a case runs against: the bot version's own settings and limits. */
export interface BotUnderTest {
  slug: string;
  fleet: string | null;
  symbol: string;
  /** The bot's universe when it holds several symbols: its cases then run on its portfolio. */
  symbols?: string[];
  costs: {
    feeBps: number;
    slippageBps: number;
    positionSize: number;
    /** Most of a bar's volume one bar's fills may take (engine.max_volume_participation). */
    maxVolumeParticipation?: number;
  };
  initialCash: number;
  limits: RiskLimits;
}

/** A case of the suite; async because the kill-switch drain waits for a runner to stop. */
export interface ConformanceCase {
  name: string;
  article: string;
  run(bot: BotUnderTest): CaseResult | Promise<CaseResult>;
}

/** Plain JSON of a record (drops undefined fields), for a case's stored evidence. */
export function asJson(value: unknown): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}

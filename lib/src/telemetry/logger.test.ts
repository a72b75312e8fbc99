import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { AuditRecordedSchema, TrialRecordedSchema } from "@svc/gen/svc/events/v1/events_pb.js";
import { describeEvent } from "../bus/describe-event.js";
import { createLogger } from "./logger.js";

function captured(level = "info") {
  const lines: string[] = [];
  const out = { write: (text: string) => void lines.push(text), isTTY: false };
  const log = createLogger({ name: "svc", level, format: "pretty", destination: out });
  return { log, lines };
}

describe("pretty logs for a person at a terminal", () => {
  it("writes a request as one line: method, path, status and time", () => {
    const { log, lines } = captured();
    log.info({ request_id: "r1", method: "GET", url: "/bots", status: 200, ms: 3.1 }, "http");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/INFO.*GET \/bots 200 3\.1 ms/);
    expect(lines[0]).toContain("r1");
    expect(lines[0]).not.toMatch(/^\{/);
    expect(lines[0]!.trimEnd().split("\n")).toHaveLength(1);
  });

  it("leaves out a successful RPC the gateway's line already reports, unless at debug", () => {
    const info = captured("info");
    info.log.info({ request_id: "r1", rpc: "svc.bots.v1.BotsService/ListBots", code: "ok" }, "rpc");
    info.log.info(
      { request_id: "r2", rpc: "svc.bots.v1.BotsService/GetBot", code: "NotFound" },
      "rpc",
    );
    expect(info.lines).toHaveLength(1);
    expect(info.lines[0]).toContain("NotFound");

    const debug = captured("debug");
    debug.log.info(
      { request_id: "r1", rpc: "svc.bots.v1.BotsService/ListBots", code: "ok" },
      "rpc",
    );
    expect(debug.lines).toHaveLength(1);
  });

  it("never writes a bearer token", () => {
    const { log, lines } = captured();
    log.info({ headers: { authorization: "Bearer secret-token" } }, "call");
    expect(lines.join("")).not.toContain("secret-token");
  });

  it("writes JSON when asked, whatever the terminal", () => {
    const lines: string[] = [];
    const log = createLogger({
      name: "svc",
      format: "json",
      destination: { write: (t: string) => void lines.push(t) },
    });
    log.info({ a: 1 }, "hello");
    expect(JSON.parse(lines[0]!)).toMatchObject({ a: 1, msg: "hello", name: "svc" });
  });
});

describe("domain events in the log", () => {
  it("names the event and its ids, leaving bulky fields out", () => {
    const payload = toBinary(
      TrialRecordedSchema,
      create(TrialRecordedSchema, {
        trialId: "t-1",
        botId: "b-1",
        version: 2,
        dailyReturns: [0.01, -0.02],
      }),
    );
    const fields = describeEvent(TrialRecordedSchema.typeName, payload);
    expect(fields).toMatchObject({
      event: "TrialRecorded",
      trial_id: "t-1",
      bot_id: "b-1",
      version: 2,
    });
    expect(fields).not.toHaveProperty("daily_returns");
  });

  it("flattens the actor of an audit event and names an unknown event only", () => {
    const payload = toBinary(
      AuditRecordedSchema,
      create(AuditRecordedSchema, {
        action: "kill_switch.engage",
        actor: { subject: "local|default" },
      }),
    );
    expect(describeEvent(AuditRecordedSchema.typeName, payload)).toMatchObject({
      event: "AuditRecorded",
      action: "kill_switch.engage",
      "actor.subject": "local|default",
    });
    expect(describeEvent("svc.events.v1.Nope", new Uint8Array([1, 2]))).toEqual({ event: "Nope" });
  });
});

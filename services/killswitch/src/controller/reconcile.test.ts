import { describe, expect, it } from "vitest";
import { reconcile, type BotCR, type KillSwitchCR, type ServiceSwitch } from "./reconcile.js";

const cr = (
  name: string,
  spec: KillSwitchCR["spec"],
  status?: KillSwitchCR["status"],
): KillSwitchCR => ({ name, generation: 1, spec, status });
const sw = (
  name: string,
  scope: string,
  target: string,
  over: Partial<ServiceSwitch> = {},
): ServiceSwitch => ({
  name,
  scope,
  target,
  mode: "cancel",
  reason: "",
  ttl: "",
  engaged: true,
  ...over,
});
const bots: BotCR[] = [
  {
    name: "a1",
    spec: { slug: "a1", fleet: "alpha" },
    status: { phase: "Running", killSwitchEngaged: false, killSwitchReason: "" },
  },
  {
    name: "b1",
    spec: { slug: "b1", fleet: "beta" },
    status: { phase: "Running", killSwitchEngaged: false, killSwitchReason: "" },
  },
];

describe("kill-switch controller reconcile", () => {
  it("mirrors a new CR into the service and marks the covered bots", () => {
    const actions = reconcile(
      [cr("drill", { scope: "fleet", target: "alpha", mode: "cancel", reason: "drill" })],
      [],
      bots,
    );
    expect(actions).toEqual([
      {
        kind: "apply",
        name: "k8s-drill",
        spec: { scope: "fleet", target: "alpha", mode: "cancel", reason: "drill" },
        rescope: false,
      },
      {
        kind: "patchKillSwitchStatus",
        cr: "drill",
        status: { engaged: true, observedGeneration: 1 },
      },
      {
        kind: "patchBotStatus",
        bot: "a1",
        status: { phase: "Stopped", killSwitchEngaged: true, killSwitchReason: "k8s-drill: drill" },
      },
    ]);
  });

  it("does nothing when everything agrees", () => {
    const c = cr(
      "drill",
      { scope: "fleet", target: "alpha", mode: "cancel", reason: "drill" },
      { engaged: true, observedGeneration: 1 },
    );
    const s = sw("k8s-drill", "fleet", "alpha", { reason: "drill" });
    const settled: BotCR[] = [
      {
        ...bots[0]!,
        status: { phase: "Stopped", killSwitchEngaged: true, killSwitchReason: "k8s-drill: drill" },
      },
      bots[1]!,
    ];
    expect(reconcile([c], [s], settled)).toEqual([]);
  });

  it("releases an owned switch whose CR was deleted, never one engaged by REST or by hand", () => {
    const actions = reconcile(
      [],
      [
        sw("k8s-gone", "platform", "platform"),
        sw("ops-manual", "bot", "b1"),
        sw("kv-bot-b1", "bot", "b1"),
      ],
      bots,
    );
    expect(actions.filter((a) => a.kind === "release")).toEqual([
      { kind: "release", name: "k8s-gone" },
    ]);
    expect(actions.find((a) => a.kind === "patchBotStatus" && a.bot === "b1")).toMatchObject({
      status: { killSwitchEngaged: true },
    });
    expect(actions.find((a) => a.kind === "patchBotStatus" && a.bot === "a1")).toBeUndefined();
  });

  it("re-applies a CR whose spec changed, and a platform switch covers every bot", () => {
    const actions = reconcile(
      [cr("all", { scope: "platform", target: "platform", mode: "flatten" })],
      [sw("k8s-all", "platform", "platform")],
      bots,
    );
    expect(actions[0]).toEqual({
      kind: "apply",
      name: "k8s-all",
      spec: { scope: "platform", target: "platform", mode: "flatten" },
      rescope: false,
    });
    expect(actions.filter((a) => a.kind === "patchBotStatus")).toHaveLength(2);
  });

  it("does not engage again a switch released after its CR's generation was applied (TTL elapsed, or released by REST), and says so in the CR's status", () => {
    const applied = cr(
      "timed",
      { scope: "fleet", target: "alpha", mode: "cancel", reason: "4h pause", ttl: "4h" },
      { engaged: true, observedGeneration: 1 },
    );
    expect(reconcile([applied], [], bots)).toEqual([
      {
        kind: "patchKillSwitchStatus",
        cr: "timed",
        status: { engaged: false, observedGeneration: 1 },
      },
    ]);
    const reported = { ...applied, status: { engaged: false, observedGeneration: 1 } };
    expect(reconcile([reported], [], bots)).toEqual([]);
  });

  it("engages again once the CR is edited (a new generation), and records that generation", () => {
    const edited: KillSwitchCR = {
      ...cr("timed", { scope: "bot", target: "b1", mode: "freeze", reason: "again" }),
      generation: 2,
      status: { engaged: false, observedGeneration: 1 },
    };
    const actions = reconcile([edited], [], bots);
    expect(actions.slice(0, 2)).toEqual([
      {
        kind: "apply",
        name: "k8s-timed",
        spec: { scope: "bot", target: "b1", mode: "freeze", reason: "again" },
        rescope: false,
      },
      {
        kind: "patchKillSwitchStatus",
        cr: "timed",
        status: { engaged: true, observedGeneration: 2 },
      },
    ]);
    expect(actions[2]).toMatchObject({ kind: "patchBotStatus", bot: "b1" });
  });

  it("only records the new generation when an edit left the switch as it was", () => {
    const c: KillSwitchCR = {
      ...cr("drill", { scope: "fleet", target: "beta", mode: "cancel", reason: "drill" }),
      generation: 3,
      status: { engaged: true, observedGeneration: 2 },
    };
    const s = sw("k8s-drill", "fleet", "beta", { reason: "drill" });
    const settled: BotCR[] = [
      bots[0]!,
      {
        ...bots[1]!,
        status: { phase: "Stopped", killSwitchEngaged: true, killSwitchReason: "k8s-drill: drill" },
      },
    ];
    expect(reconcile([c], [s], settled)).toEqual([
      {
        kind: "patchKillSwitchStatus",
        cr: "drill",
        status: { engaged: true, observedGeneration: 3 },
      },
    ]);
  });

  it("refuses an edit that moves the switch to another scope: the old switch stays, the CR's status says why, and nothing is retried", () => {
    const moved: KillSwitchCR = {
      ...cr("incident", { scope: "bot", target: "b1", mode: "cancel" }),
      generation: 2,
      status: { engaged: true, observedGeneration: 1 },
    };
    const engaged = sw("k8s-incident", "platform", "platform");
    const actions = reconcile([moved], [engaged], bots);
    expect(actions.filter((a) => a.kind === "apply" || a.kind === "release")).toEqual([]);
    const status = actions.find((a) => a.kind === "patchKillSwitchStatus");
    expect(status).toMatchObject({
      cr: "incident",
      status: { engaged: true, observedGeneration: 1 },
    });
    expect(status?.kind === "patchKillSwitchStatus" && status.status.refusal).toMatch(
      /engaged on platform platform.*spec\.rescope: true/,
    );
    // Every bot stays covered by the platform switch that was not released.
    expect(
      actions.filter((a) => a.kind === "patchBotStatus").map((a) => a.status.killSwitchEngaged),
    ).toEqual([true, true]);
    // Once reported, the same refusal is not patched again on every pass.
    const reported = { ...moved, status: status!.status as KillSwitchCR["status"] };
    expect(
      reconcile([reported], [engaged], bots).filter((a) => a.kind === "patchKillSwitchStatus"),
    ).toEqual([]);
  });

  it("moves the switch when the CR sets spec.rescope, and clears the refusal", () => {
    const moved: KillSwitchCR = {
      ...cr("incident", { scope: "bot", target: "b1", mode: "cancel", rescope: true }),
      generation: 3,
      status: { engaged: true, observedGeneration: 1, refusal: "earlier refusal" },
    };
    const actions = reconcile([moved], [sw("k8s-incident", "platform", "platform")], bots);
    expect(actions.slice(0, 2)).toEqual([
      {
        kind: "apply",
        name: "k8s-incident",
        spec: { scope: "bot", target: "b1", mode: "cancel", rescope: true },
        rescope: true,
      },
      {
        kind: "patchKillSwitchStatus",
        cr: "incident",
        status: { engaged: true, observedGeneration: 3, refusal: null },
      },
    ]);
  });
});

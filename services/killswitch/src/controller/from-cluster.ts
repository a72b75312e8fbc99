import type { KubernetesObject } from "@svc/lib/kube";
import { Mode, Scope, type KillSwitch } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import type { BotCR, KillSwitchCR, ServiceSwitch } from "./reconcile.js";

/** A custom resource as the API server serves it: what reconcile reads, under its metadata. */
export type KubeObject<R extends { spec: unknown; status?: unknown }> = KubernetesObject & {
  spec: R["spec"];
  status?: R["status"];
};

export const SCOPES: Record<string, Scope> = {
  bot: Scope.BOT,
  fleet: Scope.FLEET,
  platform: Scope.PLATFORM,
};
export const MODES: Record<string, Mode> = {
  cancel: Mode.CANCEL,
  flatten: Mode.FLATTEN,
  freeze: Mode.FREEZE,
};
const scopeName = (s: Scope) => Object.keys(SCOPES).find((k) => SCOPES[k] === s) ?? "";
const modeName = (m: Mode) => Object.keys(MODES).find((k) => MODES[k] === m) ?? "";

export const killSwitchCR = (c: KubeObject<KillSwitchCR>): KillSwitchCR => ({
  name: c.metadata?.name ?? "",
  generation: c.metadata?.generation ?? 1,
  spec: c.spec,
  status: c.status,
});

export const botCR = (b: KubeObject<BotCR>): BotCR => ({
  name: b.metadata?.name ?? "",
  spec: b.spec,
  status: b.status,
});

export const serviceSwitch = (s: KillSwitch): ServiceSwitch => ({
  name: s.metadata?.name ?? "",
  scope: scopeName(s.spec!.scope),
  target: s.spec!.target,
  mode: modeName(s.spec!.mode),
  reason: s.spec!.reason,
  ttl: s.spec!.ttl,
  engaged: s.status?.engaged ?? false,
});

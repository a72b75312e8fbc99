/**
 * Contracts that several services share, read from the proto: the kill-switch key scheme (the
 * `key_pattern` of svc.killswitch.v1.Scope) and the typed broadcasts of svc.events.v1 on their
 * declared subjects. Services use these instead of restating keys, subjects or JSON shapes.
 */
export * from "./kill-switch-keys.js";
export * from "./agent-halt-keys.js";
export { subjectOf } from "./broadcast.js";
export {
  publishKillSwitchChanged,
  listenKillSwitchChanged,
  listenKillSwitchKeys,
} from "./kill-switch-changed.js";
export {
  publishBotPhaseChanged,
  listenBotPhaseChanged,
  type BotPhaseName,
} from "./bot-phase-changed.js";
export {
  changedSettings,
  enqueueControlChange,
  type ControlChange,
  type ControlKind,
} from "./control-changed.js";

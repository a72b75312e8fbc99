import type { Bot } from "../types.js";

/**
 * Whether a kill switch covers a bot: engaged, clear, or unknown when the key-value store did
 * not answer (the API leaves kill_switch_engaged out then), never "clear" for want of an answer.
 */
export function KillSwitchBadge({ runtime }: { runtime: Bot["runtime"] | undefined }) {
  if (!runtime) return <>—</>;
  const reason = runtime.kill_switch_reason;
  if (runtime.kill_switch_engaged === true)
    return (
      <span class="badge bad" title={reason}>
        engaged{reason ? `: ${reason}` : ""}
      </span>
    );
  if (runtime.kill_switch_engaged === false) return <span class="badge ok">clear</span>;
  return (
    <span class="badge" title={reason}>
      unknown{reason ? ` (${reason.replace(/^unknown: /, "")})` : ""}
    </span>
  );
}

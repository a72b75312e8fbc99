import { CALL_DEADLINES_MS } from "@svc/lib/deadline";

export interface ReportAnswer {
  ok: boolean;
  status: number;
  /** The YAML exactly as served (on success), or the error's code and message. */
  body: string;
  sha256: string;
}

/**
 * Fetches the annual validation report of one bot (or of the platform without `bot`) as the
 * platform serves it: the bytes untouched, so what is printed hashes to the served SHA-256.
 */
export async function fetchReport(
  base: string,
  headers: Record<string, string>,
  opts: { bot?: string; year?: string; signedId?: string },
  // The server gives a report the long call's deadline; the CLI waits that and a little more, so
  // the server's own 504 (which says why) arrives rather than the CLI giving up first.
  timeoutMs = CALL_DEADLINES_MS.long + 5_000,
): Promise<ReportAnswer> {
  const path = opts.signedId
    ? `/risk/validation-report/signed/${encodeURIComponent(opts.signedId)}`
    : opts.bot
      ? `/bots/${encodeURIComponent(opts.bot)}/risk/validation-report`
      : "/risk/validation-report";
  const query = opts.year ? `?year=${encodeURIComponent(opts.year)}` : "";
  const res = await fetch(`${base}${path}${query}`, {
    headers,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  if (res.ok)
    return {
      ok: true,
      status: res.status,
      body: text,
      sha256: res.headers.get("x-report-sha256") ?? "",
    };
  let why = text;
  try {
    const e = (JSON.parse(text) as { error?: { code: string; message: string } }).error;
    if (e) why = `${e.code}: ${e.message}`;
  } catch {
    // Not the platform's error body (a proxy's page): show it as it came.
  }
  return { ok: false, status: res.status, body: why, sha256: "" };
}

/** Where a runner trades and with which credentials (SVC_LIVE_VENUE*). */
export interface VenueSettings {
  adapter: "fix" | "ccxt";
  host: string;
  port: number;
  credentials: { username: string; password: string; apiKey: string; apiSecret: string };
  /** FIX: the SenderCompID to log on with (unset: the adapter's, SVC-BOT). */
  senderCompId?: string;
}

/** Why no runner can trade at the venue: the settings lack its credentials (undefined: they do not). */
export function venueNotConfigured(v: VenueSettings): string | undefined {
  const c = v.credentials;
  if (v.adapter === "fix" && (!c.username || !c.password))
    return "no venue is configured: set SVC_LIVE_VENUE_USERNAME and SVC_LIVE_VENUE_PASSWORD (npm run venue prints them) for the bots service";
  if (v.adapter === "ccxt" && (!c.apiKey || !c.apiSecret))
    return "no venue is configured: set SVC_LIVE_VENUE_API_KEY and SVC_LIVE_VENUE_API_SECRET for the bots service";
  return undefined;
}

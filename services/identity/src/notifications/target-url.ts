import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Where a webhook may be sent. A subscription's URL is chosen by whoever may write webhooks, and
 * the platform posts to it from inside the network: without these checks it would reach the
 * cloud's metadata endpoint, Postgres or the admin port of a neighbour (SSRF). The URL is checked
 * when a subscription is made, and every connection checks the addresses its name resolves to,
 * so a name that later resolves inward (DNS rebinding) is refused at delivery too.
 */
export interface TargetPolicy {
  /** SVC_WEBHOOK_ALLOW_HTTP_LOOPBACK: http:// (and https://) to a loopback address, for dev. */
  allowHttpLoopback: boolean;
}

/** A URL the platform will not post to, with why, for a 400 a person can act on. */
export class TargetRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Addresses inside a network: private, link-local (cloud metadata), shared, reserved. */
const INTERNAL = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  INTERNAL.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const)
  INTERNAL.addSubnet(net, bits, "ipv6");

/** An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is. */
function plain(address: string): { address: string; family: "ipv4" | "ipv6" } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: "ipv4" };
  return { address, family: isIP(address) === 6 ? "ipv6" : "ipv4" };
}

export const isLoopback = (address: string): boolean => {
  const a = plain(address);
  return LOOPBACK.check(a.address, a.family);
};

/** Why the platform refuses to connect to `address`, or undefined when it may. */
export function addressRefusal(address: string, policy: TargetPolicy): string | undefined {
  const a = plain(address);
  if (policy.allowHttpLoopback && LOOPBACK.check(a.address, a.family)) return undefined;
  if (INTERNAL.check(a.address, a.family))
    return `${address} is an internal address (loopback, private, link-local or reserved); webhooks go to public addresses only`;
  return undefined;
}

/**
 * Checks a subscription's URL as written: https, no credentials, and a host that is not an
 * internal address. A name is checked again at each connection (`guardedLookup`).
 */
export function checkTargetUrl(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused(`"${raw}" is not an absolute URL`);
  }
  if (url.username || url.password)
    throw new TargetRefused("a webhook URL may not carry a user name or password");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const literal = isIP(host) !== 0;
  const loopbackName = host === "localhost" || host.endsWith(".localhost");
  const loopback = literal ? isLoopback(host) : loopbackName;
  if (url.protocol === "http:") {
    if (!(policy.allowHttpLoopback && loopback))
      throw new TargetRefused(
        policy.allowHttpLoopback
          ? "http:// is allowed to a loopback address only; use https://"
          : "a webhook URL must be https:// (http:// to loopback needs SVC_WEBHOOK_ALLOW_HTTP_LOOPBACK=true, for development)",
      );
  } else if (url.protocol !== "https:")
    throw new TargetRefused(`a webhook URL must be https://, not ${url.protocol}//`);
  if (literal) {
    const why = addressRefusal(host, policy);
    if (why) throw new TargetRefused(why);
  } else if (loopbackName && !policy.allowHttpLoopback)
    throw new TargetRefused(`${host} is a loopback name; webhooks go to public addresses only`);
  return url;
}

/**
 * A `lookup` for http.request that resolves as usual and refuses when any address of the name is
 * refused: the connection is made only to addresses just checked.
 */
export function guardedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as LookupAddress[];
      for (const a of list) {
        const why = addressRefusal(a.address, policy);
        if (why) return callback(new TargetRefused(`${hostname} resolves to ${why}`), "", 0);
      }
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} has no address`), "", 0);
      callback(null, first.address, first.family);
    });
  };
}

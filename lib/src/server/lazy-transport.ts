import type { Transport } from "@connectrpc/connect";

/**
 * A Transport made on its first call: building a router over a service's routes costs a start
 * several milliseconds of its critical path, for clients some of which nobody calls for minutes.
 */
export function lazyTransport(make: () => Transport): Transport {
  let transport: Transport | undefined;
  const made = () => (transport ??= make());
  return {
    unary: (...args) => made().unary(...args),
    stream: (...args) => made().stream(...args),
  };
}

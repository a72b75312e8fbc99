import type { FastifyInstance } from "fastify";

/** How long requests in flight have to finish once a shutdown begins. */
export const CLOSE_GRACE_MS = 10_000;

/**
 * Closes the gateway: it takes no new connection, requests in flight get `graceMs` to finish, and
 * then every connection still open is cut. Without the cut, one client that never finishes its
 * request (a stalled upload, half a request's headers) held a shutdown for 90 s, until Node's
 * header timeout: past a container's grace period, so the process was killed before it closed
 * its database.
 */
export async function closeGateway(
  app: FastifyInstance,
  graceMs: number = CLOSE_GRACE_MS,
): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}

import { connect } from "nats";

/**
 * Deletes a JetStream stream a test made, so repeated runs leave nothing behind on the server.
 * With a namespace's events stream (`<NS>_EVENTS`) goes the audit checkpoint stream its identity
 * service made beside it (`<NS>_AUDIT_CHECKPOINTS`).
 */
export async function deleteTestStream(url: string, stream: string): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(stream).catch(() => false);
    if (stream.endsWith("_EVENTS"))
      await jsm.streams.delete(stream.replace(/_EVENTS$/, "_AUDIT_CHECKPOINTS")).catch(() => false);
  } finally {
    await nc.close();
  }
}

import { connect } from "nats";

/** Deletes a JetStream stream a test made, so repeated runs leave nothing behind on the server. */
export async function deleteTestStream(url: string, stream: string): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(stream).catch(() => false);
  } finally {
    await nc.close();
  }
}

import type { JetStreamManager, StreamConfig } from "nats";

/**
 * Makes the stream `config.name` say `config`: updated in place when it exists (a changed
 * setting of this release takes effect), added when it does not.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & { name: string },
): Promise<void> {
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, config);
  } catch {
    await jsm.streams.add(config);
  }
}

import os from "node:os";

/** The machine a figure was measured on, committed with the figure. */
export function machine() {
  return {
    cpu: os.cpus()[0]?.model ?? "unknown",
    cores: os.cpus().length,
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    date: new Date().toISOString(),
  };
}

// Preloaded into a license daemon by the crash test: the process dies by SIGKILL at the instant
// it would rename a finished temp file over lease.json, after the write and fsync, before the rename.
import fsp from "node:fs/promises";

const rename = fsp.rename;
fsp.rename = async (from, to) => {
  if (String(to).endsWith("lease.json")) process.kill(process.pid, "SIGKILL");
  return rename(from, to);
};

// Reads Redis's INFO (all sections) over a socket of its own: the bench counts the commands the
// runners' polls send without a client library that would itself be one more Redis client.
import { connect } from "node:net";

/** INFO's fields (`cmdstat_mget` -> `calls=1,usec=2,...`), read within `deadlineMs`. */
export function redisInfo(url: string, deadlineMs = 2_000): Promise<Map<string, string>> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`Redis INFO did not answer within ${deadlineMs} ms`));
    }, deadlineMs);
    let buffer = Buffer.alloc(0);
    socket.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      const eol = buffer.indexOf("\r\n");
      if (eol < 0) return;
      if (buffer[0] !== 0x24 /* $ */) {
        clearTimeout(timer);
        socket.destroy();
        reject(new Error(`Redis INFO answered ${buffer.subarray(0, eol).toString()}`));
        return;
      }
      const length = Number(buffer.subarray(1, eol).toString());
      if (buffer.length < eol + 2 + length) return;
      clearTimeout(timer);
      socket.destroy();
      const fields = new Map<string, string>();
      for (const line of buffer
        .subarray(eol + 2, eol + 2 + length)
        .toString()
        .split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon > 0 && !line.startsWith("#"))
          fields.set(line.slice(0, colon), line.slice(colon + 1));
      }
      resolve(fields);
    });
    socket.write("INFO all\r\n");
  });
}

/** calls and usec of one command from INFO's commandstats (0 when it never ran). */
export function commandStats(info: Map<string, string>, command: string) {
  const fields = new Map(
    (info.get(`cmdstat_${command}`) ?? "")
      .split(",")
      .map((kv) => kv.split("=") as [string, string]),
  );
  return { calls: Number(fields.get("calls") ?? 0), usec: Number(fields.get("usec") ?? 0) };
}

/** Every command's calls, summed. */
export function totalCalls(info: Map<string, string>): number {
  let calls = 0;
  for (const [key, value] of info)
    if (key.startsWith("cmdstat_")) calls += Number(/calls=(\d+)/.exec(value)?.[1] ?? 0);
  return calls;
}

/** Redis's own CPU time so far (user and system), in ms. */
export const redisCpuMs = (info: Map<string, string>) =>
  (Number(info.get("used_cpu_user") ?? 0) + Number(info.get("used_cpu_sys") ?? 0)) * 1000;

#!/usr/bin/env -S node --import tsx
// svc-license-daemon: the holder side of licensing for a self-hosted install (docs/licensing.md).
//   svc-license-daemon init              make the device key (once); prints its public half
//   svc-license-daemon install <file>    verify a lease the vendor issued and make it the lease file
//   svc-license-daemon check             one check (and renewal when due); exit 0 valid or grace, 1 otherwise
//   svc-license-daemon [run]             check every SVC_LICENSE_CHECK_INTERVAL_S until stopped
import { readFile } from "node:fs/promises";
import { loadConfig } from "@svc/lib/config";
import { createLogger } from "@svc/lib/telemetry";
import { ensureDeviceKey } from "./device-key.js";
import { holderPaths } from "@svc/lib/license";
import { createLicenseDaemon } from "./license-daemon.js";

const config = loadConfig(process.env);
const holder = config.licenseHolder;
const log = createLogger({
  name: "license-daemon",
  level: config.logLevel,
  format: config.logFormat,
});
const [command = "run", arg] = process.argv.slice(2);

if (command === "init") {
  const device = await ensureDeviceKey(holderPaths(holder.dir));
  console.log(JSON.stringify({ device_public_key: device.publicKey }));
  process.exit(0);
}
if (!holder.deploymentId || holder.pinnedKeyIds.length === 0) {
  log.fatal("SVC_LICENSE_DEPLOYMENT_ID and SVC_LICENSE_PINNED_KEY_IDS are required");
  process.exit(2);
}
if (!holder.serverUrl)
  log.warn("SVC_LICENSE_SERVER_URL is unset: the lease is verified offline but never renewed");
const daemon = createLicenseDaemon({
  dir: holder.dir,
  deploymentId: holder.deploymentId,
  pinnedIds: holder.pinnedKeyIds,
  serverUrl: holder.serverUrl,
  checkIntervalS: holder.checkIntervalS,
  log,
});

if (command === "install") {
  if (!arg) throw new Error("usage: svc-license-daemon install <lease-file>");
  const status = await daemon.install(await readFile(arg, "utf8"));
  console.log(JSON.stringify(status));
} else if (command === "check") {
  const { status } = await daemon.tick();
  process.exitCode = status.state === "valid" || status.state === "grace" ? 0 : 1;
} else if (command === "run") {
  const stop = new AbortController();
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => stop.abort());
  log.info({ dir: holder.dir, interval_s: holder.checkIntervalS }, "license daemon started");
  await daemon.run(stop.signal);
} else {
  log.fatal(`unknown command ${command}: init, install <file>, check or run`);
  process.exitCode = 2;
}

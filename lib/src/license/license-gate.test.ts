import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signAsync } from "@noble/ed25519";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../telemetry/index.js";
import { canonicalBytes } from "./canonical.js";
import { LEASE_FORMAT, leaseTime, type LeasePayload } from "./lease-document.js";
import { openLicenseGate, type LicenseGate } from "./license-gate.js";
import { publicKeyIdOf } from "./public-keys.js";

const DAY = 86_400_000;
const T0 = Date.parse("2026-11-24T12:00:00Z");
const log = createLogger({ name: "gate-test", level: "silent" });

function vendorKey() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const secret = new Uint8Array(Buffer.from(privateKey.export({ format: "jwk" }).d!, "base64url"));
  const pub = new Uint8Array(Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url"));
  return { secret, pub, id: publicKeyIdOf(pub) };
}

describe("the license gate", () => {
  const vendor = vendorKey();
  let dir: string;
  let clock = T0;
  let gate: LicenseGate | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "gate-"));
    clock = T0;
    await writeFile(
      join(dir, "pinned-keys.json"),
      JSON.stringify({ [vendor.id]: Buffer.from(vendor.pub).toString("base64url") }),
    );
  });
  afterEach(async () => {
    gate?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function install(
    over: Partial<LeasePayload> = {},
    memory = { highestSerial: 1, lastRunAtMs: T0 },
  ) {
    const payload: LeasePayload = {
      format: LEASE_FORMAT,
      lease_id: "lease-1",
      deployment_id: "acme-prod",
      entitlements: { live_trading: true },
      serial: 1,
      issued_at: leaseTime(T0),
      expires_at: leaseTime(T0 + 7 * DAY),
      ttl_seconds: 7 * 86_400,
      grace_period_seconds: 3 * 86_400,
      public_key_id: vendor.id,
      ...over,
    };
    const signature = await signAsync(canonicalBytes(payload), vendor.secret);
    await writeFile(
      join(dir, "lease.json"),
      JSON.stringify({ payload, signature: Buffer.from(signature).toString("base64url") }),
    );
    await writeFile(join(dir, "state.json"), JSON.stringify({ ...memory, revoked: false }));
  }
  const open = async (enforced = true) =>
    (gate = await openLicenseGate({
      enforced,
      dir,
      deploymentId: "acme-prod",
      pinnedIds: [vendor.id],
      refreshMs: 60_000,
      log,
      now: () => clock,
    }));

  it("judges the lease against the clock at every question: valid, grace, expired", async () => {
    await install();
    const g = await open();
    expect(g.admits("live_trading")).toMatchObject({ admitted: true, grace: false });
    expect(g.standing()).toMatchObject({ state: "valid", secondsLeft: 7 * 86_400 });
    clock = T0 + 7 * DAY;
    expect(g.admits("live_trading")).toMatchObject({ admitted: true, grace: true });
    expect(g.standing()).toMatchObject({ state: "grace", secondsLeft: 3 * 86_400 });
    clock = T0 + 10 * DAY;
    const v = g.admits("live_trading");
    expect(v).toMatchObject({ admitted: false, standing: { state: "expired" } });
    expect(v.admitted || v.reason).toMatch(/expired at 2026-12-01T12:00:00Z/);
  });

  it("admits only what the lease entitles with true", async () => {
    await install({ entitlements: { live_trading: "yes", byoc_deployments: true } });
    const g = await open();
    expect(g.admits("byoc_deployments").admitted).toBe(true);
    expect(g.admits("live_trading").admitted).toBe(false);
    expect(g.admits("kb_federation").admitted).toBe(false);
  });

  it("refuses what the daemon refuses: another deployment, an older serial, a rolled-back clock", async () => {
    await install({ deployment_id: "someone-else" });
    expect((await open()).standing()).toMatchObject({ state: "invalid" });
    expect(gate!.standing().reason).toMatch(/for deployment someone-else/);
    gate!.close();

    await install({ serial: 3 }, { highestSerial: 4, lastRunAtMs: T0 });
    expect((await open()).standing().reason).toMatch(/serial 3 is older than serial 4/);
    gate!.close();

    await install({}, { highestSerial: 1, lastRunAtMs: T0 + DAY });
    expect((await open()).standing()).toMatchObject({ state: "invalid" });
    expect(gate!.standing().reason).toMatch(/clock rollback/);
    // A clock that only lags by an NTP step is not a rollback.
    clock = T0 + DAY - 30_000;
    expect(gate!.standing().state).toBe("valid");
  });

  it("reads a new lease on refresh, and a folder it cannot parse closes it", async () => {
    const g = await open();
    expect(g.standing().reason).toMatch(/no lease file yet/);
    await install();
    expect(g.standing().state).toBe("invalid");
    await g.refresh();
    expect(g.standing().state).toBe("valid");
    await writeFile(join(dir, "state.json"), "{not json");
    await g.refresh();
    expect(g.standing()).toMatchObject({ state: "invalid" });
    expect(g.standing().reason).toMatch(/cannot be read/);
  });

  it("a refresh asked while a read is under way reads again: what changed meanwhile is seen", async () => {
    await install();
    // read() asks the clock once it has read the folder: the hook changes the folder there and
    // asks for a refresh, as a daemon's install and its caller would during a timer's read.
    let midRead: (() => void) | undefined;
    let asked: Promise<void> | undefined;
    gate = await openLicenseGate({
      enforced: true,
      dir,
      deploymentId: "acme-prod",
      pinnedIds: [vendor.id],
      refreshMs: 60_000,
      log,
      now: () => {
        const hook = midRead;
        midRead = undefined;
        hook?.();
        return clock;
      },
    });
    const g = gate;
    expect(g.standing().state).toBe("valid");
    midRead = () => {
      writeFileSync(join(dir, "state.json"), "{not json");
      asked = g.refresh();
    };
    await g.refresh();
    expect(asked).toBeDefined();
    await asked;
    expect(g.standing().reason).toMatch(/cannot be read/);
  });

  it("is open and reads nothing when enforcement is off", async () => {
    const g = await open(false);
    expect(g.enforced).toBe(false);
    expect(g.admits("live_trading")).toMatchObject({ admitted: true, grace: false });
  });
});

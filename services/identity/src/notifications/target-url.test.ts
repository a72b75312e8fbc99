import { describe, expect, it } from "vitest";
import { checkTargetUrl, guardedLookup, TargetRefused } from "./target-url.js";

const strict = { allowHttpLoopback: false };
const dev = { allowHttpLoopback: true };
const refused = (url: string, policy = strict) => {
  try {
    checkTargetUrl(url, policy);
  } catch (err) {
    if (err instanceof TargetRefused) return err.reason;
    throw err;
  }
  return undefined;
};

describe("webhook target URLs", () => {
  it("takes a public https URL", () => {
    expect(refused("https://hooks.example.com/in")).toBeUndefined();
    expect(refused("https://93.184.216.34/in")).toBeUndefined();
  });

  it("refuses internal addresses whatever their spelling", () => {
    for (const url of [
      "https://169.254.169.254/latest/meta-data",
      "https://10.1.2.3/",
      "https://192.168.0.1/",
      "https://172.20.0.5/",
      "https://127.0.0.1:5432/",
      "https://[::1]/",
      "https://[::ffff:10.0.0.1]/",
      "https://[fd00::1]/",
      "https://0.0.0.0/",
      "https://localhost/",
    ])
      expect(refused(url), url).toMatch(/internal address|loopback/);
  });

  it("refuses plain http, other schemes and credentials", () => {
    expect(refused("http://hooks.example.com/")).toMatch(/must be https/);
    expect(refused("ftp://hooks.example.com/")).toMatch(/must be https/);
    expect(refused("https://u:p@hooks.example.com/")).toMatch(/user name or password/);
    expect(refused("not a url")).toMatch(/not an absolute URL/);
  });

  it("takes http to loopback only when the setting allows it, and nothing else internal", () => {
    expect(refused("http://127.0.0.1:8080/", dev)).toBeUndefined();
    expect(refused("http://localhost:8080/", dev)).toBeUndefined();
    expect(refused("http://hooks.example.com/", dev)).toMatch(/loopback address only/);
    expect(refused("https://10.0.0.1/", dev)).toMatch(/internal address/);
    expect(refused("http://127.0.0.1:8080/")).toMatch(/SVC_WEBHOOK_ALLOW_HTTP_LOOPBACK/);
  });

  it("refuses at connection time a name that resolves to an internal address", async () => {
    const resolve = (policy: { allowHttpLoopback: boolean }) =>
      new Promise<string>((done) =>
        guardedLookup(policy)("localhost", { family: 4 }, (err, address) =>
          done(err ? `refused: ${err.message}` : String(address)),
        ),
      );
    expect(await resolve(strict)).toMatch(
      /^refused: localhost resolves to 127\.0\.0\.1 is an internal address/,
    );
    expect(await resolve(dev)).toBe("127.0.0.1");
  });
});

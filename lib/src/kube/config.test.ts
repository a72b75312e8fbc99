import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { kubeConfigFor } from "./config.js";

describe("which credentials the Kubernetes client uses", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("SVC_KUBE_TOKEN when set, against SVC_KUBE_API_URL, with its deadline on watches too", async () => {
    const kc = kubeConfigFor({
      apiUrl: "https://api.example:6443/",
      namespace: "svc",
      token: "t0k",
      timeoutMs: 750,
    });
    expect(kc.getCurrentCluster()).toMatchObject({
      server: "https://api.example:6443",
      skipTLSVerify: false,
    });
    const opts = await kc.applyToFetchOptions({});
    expect((opts.headers as unknown as Headers).get("authorization")).toBe("Bearer t0k");
    expect(opts.timeout).toBe(750);
  });

  it("without a token and outside a cluster, KUBECONFIG's current user against SVC_KUBE_API_URL", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kubeconfig-"));
    try {
      writeFileSync(
        join(dir, "config"),
        `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "https://elsewhere:443" } }]
users: [{ name: u, user: { token: from-kubeconfig } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
      );
      delete process.env.KUBERNETES_SERVICE_HOST;
      process.env.KUBECONFIG = join(dir, "config");
      const kc = kubeConfigFor({ apiUrl: "https://api.example", namespace: "svc" });
      expect(kc.getCurrentCluster()?.server).toBe("https://api.example");
      const opts = await kc.applyToFetchOptions({});
      expect((opts.headers as unknown as Headers).get("authorization")).toBe(
        "Bearer from-kubeconfig",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

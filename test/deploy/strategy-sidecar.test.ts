import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readManifests } from "../../deploy/k8s/render/kustomize.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const objects = readManifests(join(ROOT, "deploy/k8s/examples/runner-python-strategy.yaml"));

interface Container {
  name: string;
  image: string;
  args?: string[];
  restartPolicy?: string;
  resources?: { limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  runtimeClassName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: { fsGroup?: number };
  initContainers: Container[];
  containers: Container[];
  volumes: { name: string; emptyDir?: object; configMap?: { name: string } }[];
}

describe("the runner pod of a Python strategy (deploy/k8s/examples)", () => {
  const pod = objects.find((o) => o.kind === "Pod")!;
  const spec = pod.spec as PodSpec;
  const strategy = spec.initContainers.find((c) => c.name === "strategy")!;
  const runner = spec.containers.find((c) => c.name === "runner")!;

  it("runs the strategy as a sidecar serving on a socket in a volume only the two share", () => {
    expect(strategy.restartPolicy).toBe("Always");
    const socket = (c: Container) =>
      c.volumeMounts!.find((m) => m.name === "strategy-socket")!.mountPath;
    expect(socket(strategy)).toBe(socket(runner));
    expect(strategy.args![0]).toBe(`${socket(strategy)}/strategy.sock`);
    expect(spec.volumes.find((v) => v.name === "strategy-socket")!.emptyDir).toBeDefined();
    // The runner can connect to a socket another user made: both in the volume's group.
    expect(spec.securityContext?.fsGroup).toBeDefined();
  });

  it("bounds the strategy: gVisor, no token, read-only root and source, no capabilities, limits", () => {
    const runtimeClass = objects.find((o) => o.kind === "RuntimeClass")!;
    expect(spec.runtimeClassName).toBe(runtimeClass.metadata.name);
    expect((runtimeClass as { handler?: string }).handler).toBe("runsc");
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(strategy.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      runAsUser: 65534,
    });
    expect(strategy.resources?.limits).toMatchObject({
      cpu: expect.any(String),
      memory: expect.any(String),
    });
    expect(strategy.volumeMounts!.find((m) => m.name === "strategy-source")!.readOnly).toBe(true);
    const source = spec.volumes.find((v) => v.name === "strategy-source")!.configMap!.name;
    const configMap = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === source);
    expect(configMap).toMatchObject({
      immutable: true,
      data: { "strategy.py": expect.any(String) },
    });
  });

  it("runs the image built from the Dockerfile, whose entry serves the mounted file", () => {
    const dockerfile = readFileSync(join(ROOT, "deploy/strategy-python.Dockerfile"), "utf8");
    expect(dockerfile).toContain('ENTRYPOINT ["python3", "-m", "svc_strategy.serve"]');
    expect(dockerfile).toMatch(/grpc_tools\.protoc .*svc\/strategy\/v1\/strategy\.proto/s);
    expect(strategy.args![1]).toBe(
      `${strategy.volumeMounts!.find((m) => m.name === "strategy-source")!.mountPath}/strategy.py`,
    );
  });
});

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { renderKustomization } from "../../deploy/k8s/render/kustomize.js";

// The renderer behind the manifests test and `deploy/k8s/render/cli.ts`, on small trees.
const root = mkdtempSync(join(tmpdir(), "kustomize-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(root, "t-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web, labels: { tier: front } }
spec:
  replicas: 2
  template: { spec: { containers: [{ name: web, image: "app:1" }] } }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: web }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: web }
subjects: [{ kind: ServiceAccount, name: web, namespace: default }]
`;

describe("the kustomize subset renderer", () => {
  it("sets the namespace (binding subjects too), rewrites images, applies JSON 6902 and merge patches in order", () => {
    const dir = tree({
      "base/kustomization.yaml": "namespace: prod\nresources: [app.yaml]\n",
      "base/app.yaml": deployment,
      "overlay/kustomization.yaml": `resources: [../base]
images: [{ name: app, newName: reg.example/app, newTag: "2" }]
patches:
  - target: { kind: Deployment, labelSelector: "tier=front" }
    patch: |-
      - { op: replace, path: /spec/replicas, value: 5 }
  - patch: |-
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: web }
      spec: { paused: true }
`,
    });
    const [web, binding] = renderKustomization(join(dir, "overlay"));
    expect(web).toMatchObject({
      metadata: { name: "web", namespace: "prod" },
      spec: {
        replicas: 5,
        paused: true,
        template: { spec: { containers: [{ image: "reg.example/app:2" }] } },
      },
    });
    expect(binding!.subjects).toEqual([{ kind: "ServiceAccount", name: "web", namespace: "prod" }]);
  });

  it("refuses what it would otherwise leave out: an unknown field, a patch that matches nothing or a path that is not there", () => {
    const base = { "app.yaml": deployment };
    expect(() =>
      renderKustomization(
        tree({ ...base, "kustomization.yaml": "resources: [app.yaml]\ncommonLabels: { a: b }\n" }),
      ),
    ).toThrow(/commonLabels not supported/);
    expect(() =>
      renderKustomization(
        tree({
          ...base,
          "kustomization.yaml": `resources: [app.yaml]
patches: [{ target: { kind: Deployment, name: api }, patch: "- { op: remove, path: /spec/replicas }" }]
`,
        }),
      ),
    ).toThrow(/matches nothing/);
    expect(() =>
      renderKustomization(
        tree({
          ...base,
          "kustomization.yaml": `resources: [app.yaml]
patches: [{ target: { kind: Deployment }, patch: "- { op: replace, path: /spec/minReadySeconds, value: 1 }" }]
`,
        }),
      ),
    ).toThrow(/minReadySeconds" does not exist/);
    expect(() =>
      renderKustomization(
        tree({ ...base, "kustomization.yaml": "resources: [app.yaml, app.yaml]\n" }),
      ),
    ).toThrow(/defined twice/);
  });
});

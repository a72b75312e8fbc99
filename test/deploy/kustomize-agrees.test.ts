import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { renderKustomization, type Manifest } from "../../deploy/k8s/render/kustomize.js";

// The renderer the validation uses, against the real kustomize where a kubectl with one is
// installed (this kind of machine has kubectl 1.32 with kustomize v5.5.0): the same objects,
// field for field, for every kustomization in deploy/k8s.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const kubectl = (() => {
  try {
    return execFileSync("kubectl", ["version", "--client", "-o", "json"], {
      encoding: "utf8",
      timeout: 10_000,
    });
  } catch {
    return undefined;
  }
})();

describe.skipIf(!kubectl)("the renderer and kubectl kustomize", () => {
  for (const dir of ["base", "overlays/production", "overlays/staging", "crds", "cluster"])
    it(`render deploy/k8s/${dir} to the same objects`, () => {
      const path = join(ROOT, "deploy/k8s", dir);
      const real = parseAllDocuments(
        execFileSync("kubectl", ["kustomize", path], { encoding: "utf8", timeout: 30_000 }),
      ).map((d) => d.toJS() as Manifest);
      const key = (o: Manifest) =>
        `${o.apiVersion} ${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`;
      const ours = new Map(renderKustomization(path).map((o) => [key(o), o]));
      expect(real.map(key).sort()).toEqual([...ours.keys()].sort());
      for (const o of real) expect(ours.get(key(o)), key(o)).toEqual(o);
    });
});

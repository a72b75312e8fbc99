import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { applyJsonPatch, type PatchOp } from "./json-patch.js";

/** A Kubernetes object as a manifest holds it. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

interface Target {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  labelSelector?: string;
}
interface Kustomization {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  resources?: string[];
  images?: Array<{ name: string; newName?: string; newTag?: string; digest?: string }>;
  patches?: Array<{ target?: Target; patch?: string; path?: string }>;
}

const KNOWN = new Set(["apiVersion", "kind", "namespace", "resources", "images", "patches"]);
// Kinds without a namespace, among those the manifests use.
const CLUSTER_SCOPED = new Set([
  "Namespace",
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleBinding",
]);

/**
 * Renders a kustomization directory the way `kustomize build` does, for the subset of
 * kustomize the platform's manifests use: `resources` (files and other kustomization
 * directories, in order), `namespace`, `images` and `patches` (a JSON 6902 list, or a partial
 * object merged as a JSON merge patch; by `target` kind, name, group, version and an
 * equality-based `labelSelector`, or by the patch's own kind and name). Any other field is an
 * error, so nothing is silently left out. Written so rendering needs no tool (Debian's kubectl
 * 1.20 bundles kustomize 2.0, which has no `patches`); test/deploy/kustomize-agrees.test.ts
 * checks it gives what `kubectl kustomize` gives wherever a kubectl is installed.
 *
 * @example
 * const objects = renderKustomization("deploy/k8s/overlays/production");
 */
export function renderKustomization(dir: string): Manifest[] {
  const file = join(dir, "kustomization.yaml");
  const k = parseYaml(readFileSync(file, "utf8")) as Kustomization;
  const unknown = Object.keys(k).filter((f) => !KNOWN.has(f));
  if (unknown.length)
    throw new Error(`${file}: ${unknown.join(", ")} not supported by this renderer`);
  let objects: Manifest[] = [];
  for (const r of k.resources ?? []) {
    const path = resolve(dir, r);
    objects.push(
      ...(statSync(path).isDirectory() ? renderKustomization(path) : readManifests(path)),
    );
  }
  if (k.namespace) objects = objects.map((o) => withNamespace(o, k.namespace!));
  for (const image of k.images ?? []) objects = objects.map((o) => withImage(o, image));
  for (const p of k.patches ?? []) objects = applyPatch(objects, p, dir, file);
  const seen = new Set<string>();
  for (const o of objects) {
    const id = `${o.apiVersion} ${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`;
    if (seen.has(id)) throw new Error(`${file}: ${id} is defined twice`);
    seen.add(id);
  }
  return objects;
}

/** The objects of a multi-document YAML file (empty documents skipped). */
export function readManifests(path: string): Manifest[] {
  return parseAllDocuments(readFileSync(path, "utf8"))
    .map((d) => {
      if (d.errors.length) throw new Error(`${path}: ${d.errors[0]!.message}`);
      return d.toJS() as Manifest | null;
    })
    .filter((o): o is Manifest => o !== null);
}

function withNamespace(o: Manifest, namespace: string): Manifest {
  if (CLUSTER_SCOPED.has(o.kind)) return o;
  const out: Manifest = { ...o, metadata: { ...o.metadata, namespace } };
  // As kustomize does: a binding's service accounts follow the namespace too.
  if (o.kind === "RoleBinding" || o.kind === "ClusterRoleBinding")
    out.subjects = (o.subjects as Array<Record<string, string>>).map((s) =>
      s.kind === "ServiceAccount" ? { ...s, namespace } : s,
    );
  return out;
}

function withImage(o: Manifest, image: NonNullable<Kustomization["images"]>[number]): Manifest {
  const rewrite = (c: { image?: string }) => {
    if (!c.image) return c;
    const name = c.image.replace(/@.*$/, "").replace(/:[^/:]+$/, "");
    if (name !== image.name) return c;
    const ref = image.digest
      ? `@${image.digest}`
      : image.newTag
        ? `:${image.newTag}`
        : c.image.slice(name.length);
    return { ...c, image: `${image.newName ?? name}${ref}` };
  };
  const spec = (o.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template
    ?.spec;
  if (!spec) return o;
  const out = structuredClone(o);
  const podSpec = (out.spec as { template: { spec: Record<string, Array<{ image?: string }>> } })
    .template.spec;
  for (const list of ["containers", "initContainers"])
    if (podSpec[list]) podSpec[list] = podSpec[list].map(rewrite);
  return out;
}

function matches(o: Manifest, t: Target): boolean {
  const [group, version] = o.apiVersion.includes("/")
    ? o.apiVersion.split("/")
    : ["", o.apiVersion];
  if (t.kind && t.kind !== o.kind) return false;
  if (t.name && t.name !== o.metadata.name) return false;
  if (t.group !== undefined && t.group !== group) return false;
  if (t.version && t.version !== version) return false;
  for (const term of t.labelSelector?.split(",") ?? []) {
    const m = /^\s*([^!=\s]+)\s*(!=|==|=)\s*(\S*)\s*$/.exec(term);
    if (!m) throw new Error(`labelSelector "${t.labelSelector}": only key=value and key!=value`);
    const value = o.metadata.labels?.[m[1]!];
    if ((m[2] === "!=") === (value === m[3])) return false;
  }
  return true;
}

function applyPatch(
  objects: Manifest[],
  p: NonNullable<Kustomization["patches"]>[number],
  dir: string,
  file: string,
): Manifest[] {
  const text = p.patch ?? readFileSync(resolve(dir, p.path ?? ""), "utf8");
  const body = parseYaml(text) as PatchOp[] | Partial<Manifest>;
  const target: Target | undefined =
    p.target ?? (Array.isArray(body) ? undefined : { kind: body.kind, name: body.metadata?.name });
  if (!target) throw new Error(`${file}: a JSON 6902 patch needs a target`);
  let hit = 0;
  const out = objects.map((o) => {
    if (!matches(o, target)) return o;
    hit++;
    try {
      return Array.isArray(body) ? applyJsonPatch(o, body) : (mergePatch(o, body) as Manifest);
    } catch (err) {
      throw new Error(`${file}: patch of ${o.kind}/${o.metadata.name}: ${(err as Error).message}`);
    }
  });
  if (!hit) throw new Error(`${file}: the patch for ${JSON.stringify(target)} matches nothing`);
  return out;
}

/** RFC 7386 JSON merge patch (null removes a field). */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

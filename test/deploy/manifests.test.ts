import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LIVENESS_SERVICE } from "@svc/lib/server";
import {
  readManifests,
  renderKustomization,
  type Manifest,
} from "../../deploy/k8s/render/kustomize.js";
import { CRD_SCHEMAS } from "./crd-schemas.js";
import { unknownFields } from "./strict-fields.js";

// The rendered manifests, checked as a cluster's API server would check them: the built-in
// kinds against the Kubernetes schemas (kubernetes-models' validate(), plus unknown fields
// against the client library's API types), our CRs against our CRDs' openAPIV3Schema, and
// Istio's and CloudNativePG's kinds against the partial schemas of crd-schemas.ts (ajv 8).
// CEL rules (x-kubernetes-validations) are not evaluated here.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const K8S = join(ROOT, "deploy/k8s");
const SERVICES = ["gateway", "bots", "promotion", "killswitch", "compliance", "identity"];

type AjvLike = {
  compile(schema: object): ((data: unknown) => boolean) & {
    errors?: Array<{ instancePath: string; message?: string }> | null;
  };
};
// The ajv 8 the compliance service depends on (the root one is eslint's ajv 6).
const Ajv = (
  createRequire(join(ROOT, "services/compliance/package.json"))("ajv") as {
    default: new (o: object) => AjvLike;
  }
).default;
const ajv = new Ajv({ strict: false, allErrors: true }) as AjvLike & {
  addFormat(name: string, format: RegExp): void;
};
ajv.addFormat("date-time", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);

const render = (dir: string) => renderKustomization(join(K8S, dir));
const crds = render("crds");
const cluster = render("cluster");
const renders: Record<string, Manifest[]> = {
  base: render("base"),
  "overlays/production": render("overlays/production"),
  "overlays/staging": render("overlays/staging"),
  crds,
  cluster,
};
const examples = ["killswitch-fleet.yaml", "bot.yaml", "runner-python-strategy.yaml"].flatMap((f) =>
  readManifests(join(K8S, "examples", f)),
);

const id = (o: Manifest) => `${o.kind}/${o.metadata.name}`;

/** The services the proto lets call one of `service`'s RPCs (AuthPolicy.callers). */
function protoCallers(service: string): string[] {
  const dir = join(ROOT, "proto/svc", service, "v1");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".proto"))
    .flatMap((f) =>
      [...readFileSync(join(dir, f), "utf8").matchAll(/callers:\s*\[([^\]]*)\]/g)].flatMap((m) =>
        m[1]!.split(",").map((c) => c.trim().replace(/"/g, "")),
      ),
    )
    .filter(Boolean);
}

function ajvProblems(schema: object, o: unknown): string[] {
  const check = ajv.compile(schema);
  return check(o)
    ? []
    : (check.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`);
}

/** What is wrong with an object, as the API server (with its CRDs installed) would see it. */
async function problemsOf(o: Manifest): Promise<string[]> {
  const [group, version] = o.apiVersion.includes("/")
    ? o.apiVersion.split("/")
    : ["", o.apiVersion];
  const own = crds.find(
    (c) =>
      (c.spec as { group: string }).group === group &&
      (c.spec as { names: { kind: string } }).names.kind === o.kind,
  );
  if (own) {
    const v = (
      own.spec as { versions: Array<{ name: string; schema: { openAPIV3Schema: object } }> }
    ).versions.find((x) => x.name === version);
    if (!v) return [`${o.apiVersion} is not a version of ${own.metadata.name}`];
    const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = o;
    return ajvProblems(v.schema.openAPIV3Schema, rest);
  }
  const foreign = CRD_SCHEMAS[`${o.apiVersion} ${o.kind}`];
  if (foreign) return ajvProblems(foreign, o);
  let Model: new (data: unknown) => { validate(): void };
  try {
    const path = group ? `${group}/${version}/${o.kind}` : `${version}/${o.kind}`;
    const mod = (await import(/* @vite-ignore */ `kubernetes-models/${path}`)) as Record<
      string,
      unknown
    >;
    Model = mod[o.kind] as typeof Model;
  } catch {
    return [`no schema known for ${o.apiVersion} ${o.kind}`];
  }
  const problems: string[] = [];
  try {
    new Model(o).validate();
  } catch (err) {
    problems.push((err as Error).message);
  }
  const typeName = `${version![0]!.toUpperCase()}${version!.slice(1)}${o.kind}`;
  problems.push(...unknownFields(o, typeName).map((f) => `unknown field ${f}`));
  return problems;
}

async function allProblems(objects: Manifest[]): Promise<string[]> {
  const out: string[] = [];
  for (const o of objects) for (const p of await problemsOf(o)) out.push(`${id(o)}: ${p}`);
  return out;
}

const find = (objects: Manifest[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);
type Spec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const spec = (o: Manifest | undefined): Spec => (o?.spec ?? {}) as Spec;

describe("deploy/k8s manifests", () => {
  it("render: base, both overlays and the CRDs, every namespaced object in svc", () => {
    const base = renders.base!;
    expect(base.length).toBeGreaterThan(50);
    for (const o of base.filter((x) => x.kind !== "Namespace"))
      expect(o.metadata.namespace, id(o)).toBe("svc");
    expect(crds.map(id)).toEqual([
      "CustomResourceDefinition/bots.svc.example.io",
      "CustomResourceDefinition/killswitches.svc.example.io",
    ]);
  });

  it("every rendered object and example validates against its schema", async () => {
    for (const [name, objects] of Object.entries(renders))
      expect(await allProblems(objects), name).toEqual([]);
    expect(await allProblems(examples)).toEqual([]);
  });

  it("the checks refuse what a cluster would refuse", async () => {
    const deployment = find(renders.base!, "Deployment", "bots")!;
    const broken = structuredClone(deployment);
    const container = spec(broken).template.spec.containers[0];
    container.readinesProbe = container.readinessProbe;
    spec(broken).replicas = "2";
    expect(await problemsOf(broken)).toEqual([
      expect.stringMatching(/replicas must be integer/),
      "unknown field spec.template.spec.containers[0].readinesProbe",
    ]);
    const ks = structuredClone(examples[0]!);
    Object.assign(spec(ks), { mode: "pause", ttl: "soon" });
    expect((await problemsOf(ks)).join("; ")).toMatch(/mode.*allowed values.*ttl.*pattern/);
    // Istio selects workloads by matchLabels only.
    const policy = structuredClone(find(renders.base!, "AuthorizationPolicy", "bots")!);
    spec(policy).selector = { matchExpressions: [{ key: "app", operator: "In", values: ["x"] }] };
    expect((await problemsOf(policy)).join("; ")).toMatch(/selector/);
    expect(
      await problemsOf({ apiVersion: "example.io/v1", kind: "Gadget", metadata: { name: "g" } }),
    ).toEqual(["no schema known for example.io/v1 Gadget"]);
  });

  it("each service: account, deployment with its health probes, service, disruption budget, network and mesh policy", () => {
    const base = renders.base!;
    for (const s of SERVICES) {
      const d = find(base, "Deployment", s);
      expect(d, s).toBeDefined();
      const pod = spec(d).template;
      const labels = pod.metadata.labels as Record<string, string>;
      const selects = (sel: Record<string, string>) =>
        Object.entries(sel).every(([k, v]) => labels[k] === v);
      expect(pod.spec.serviceAccountName).toBe(s);
      expect(find(base, "ServiceAccount", s), s).toBeDefined();
      expect(selects(spec(find(base, "Service", s)).selector), `${s} Service`).toBe(true);
      expect(selects(spec(find(base, "PodDisruptionBudget", s)).selector.matchLabels)).toBe(true);
      expect(selects(spec(find(base, "NetworkPolicy", s)).podSelector.matchLabels)).toBe(true);
      const peer = spec(find(base, "PeerAuthentication", s));
      expect([selects(peer.selector.matchLabels), peer.mtls.mode]).toEqual([true, "STRICT"]);
      expect(selects(spec(find(base, "AuthorizationPolicy", s)).selector.matchLabels)).toBe(true);

      const c = pod.spec.containers[0];
      const ports = new Map<string, number>(
        c.ports.map((p: { name: string; containerPort: number }) => [p.name, p.containerPort]),
      );
      if (s === "gateway") {
        expect([c.readinessProbe.httpGet.path, c.livenessProbe.httpGet.path]).toEqual([
          "/readyz",
          "/healthz",
        ]);
        expect(ports.get(c.readinessProbe.httpGet.port)).toBe(8080);
      } else {
        // The standard gRPC health service every service mounts (lib/src/server/health.ts).
        expect([c.readinessProbe.grpc.port, c.livenessProbe.grpc.port]).toEqual([50051, 50051]);
        expect([...ports.values()]).toContain(50051);
        // Readiness asks the stores; liveness only whether the process answers, so a Postgres
        // outage never restarts every pod at once, and a hung process is restarted.
        expect([c.readinessProbe.grpc.service ?? "", c.livenessProbe.grpc.service], s).toEqual([
          "",
          LIVENESS_SERVICE,
        ]);
      }
      // A process that stops answering is replaced within half a minute, each probe given time
      // to answer on a busy node.
      const live = c.livenessProbe;
      expect(live.timeoutSeconds, s).toBeGreaterThanOrEqual(2);
      expect(live.periodSeconds * live.failureThreshold, s).toBeLessThanOrEqual(30);
      expect(c.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      expect(pod.spec.securityContext.runAsNonRoot).toBe(true);
    }
  });

  it("the network policy and the mesh's authorization policy admit the same callers: the gateway and those the service's proto declares", () => {
    const base = renders.base!;
    for (const s of SERVICES) {
      const np = spec(find(base, "NetworkPolicy", s));
      const fromPods = np.ingress
        .flatMap((r: Spec) => r.from)
        .filter((f: Spec) => f.podSelector)
        .map((f: Spec) => f.podSelector.matchLabels["app.kubernetes.io/name"])
        .sort();
      const principals = spec(find(base, "AuthorizationPolicy", s))
        .rules.flatMap((r: Spec) => r.from.flatMap((f: Spec) => f.source.principals))
        .map((p: string) => /^cluster\.local\/ns\/svc\/sa\/(.+)$/.exec(p)?.[1])
        .filter(Boolean)
        .sort();
      expect(principals, s).toEqual(fromPods);
      // Research chat in bots calls the gateway's /mcp; everyone else is reached by the gateway.
      const expected = s === "gateway" ? ["bots"] : [...new Set(["gateway", ...protoCallers(s)])];
      expect(fromPods, s).toEqual(expected.sort());
    }
    expect(spec(find(base, "PeerAuthentication", "default")).mtls.mode).toBe("STRICT");
    expect(find(base, "AuthorizationPolicy", "deny-by-default")?.spec).toEqual({});
  });

  it("only bots and killswitch reach the Kubernetes API, each with the least it needs", () => {
    const base = renders.base!;
    const roles = base.filter((o) => o.kind === "Role" || o.kind === "ClusterRole");
    expect(roles.map(id).sort()).toEqual(["Role/bots", "Role/killswitch"]);
    expect(base.filter((o) => o.kind === "ClusterRoleBinding")).toEqual([]);
    for (const s of SERVICES)
      expect(find(base, "ServiceAccount", s)?.automountServiceAccountToken, s).toBe(
        s === "bots" || s === "killswitch",
      );
    const rules = (name: string) =>
      (find(base, "Role", name)!.rules as Array<Spec>).map((r) => ({
        resources: r.resources,
        verbs: [...r.verbs].sort(),
      }));
    expect(rules("bots")).toEqual([
      { resources: ["bots"], verbs: ["create", "get", "patch"] },
      { resources: ["deployments/scale"], verbs: ["get", "patch"] },
    ]);
    expect(rules("killswitch")).toEqual([
      { resources: ["killswitches", "bots"], verbs: ["get", "list", "watch"] },
      { resources: ["killswitches/status", "bots/status"], verbs: ["get", "patch"] },
    ]);
    for (const name of ["bots", "killswitch"])
      expect(find(base, "RoleBinding", name)!.subjects).toEqual([
        { kind: "ServiceAccount", name, namespace: "svc" },
      ]);
  });

  it("NATS with JetStream, Redis, and a CloudNativePG cluster with a schema and a role per service", () => {
    const base = renders.base!;
    const nats = spec(find(base, "StatefulSet", "nats"));
    expect(nats.replicas).toBe(3);
    const conf = (find(base, "ConfigMap", "nats-config")!.data as Record<string, string>)[
      "nats.conf"
    ];
    expect(conf).toMatch(/jetstream \{/);
    expect(find(base, "StatefulSet", "redis")).toBeDefined();
    const pg = spec(find(base, "Cluster", "svc-pg"));
    const services = SERVICES.filter((s) => s !== "gateway");
    expect(pg.managed.roles.map((r: Spec) => r.name)).toEqual(services);
    for (const s of services)
      expect(pg.bootstrap.initdb.postInitApplicationSQL).toEqual(
        expect.arrayContaining([
          `CREATE SCHEMA ${s} AUTHORIZATION ${s}`,
          // lib/src/db's migrations start with CREATE SCHEMA IF NOT EXISTS, which needs it
          `GRANT CREATE ON DATABASE svc TO ${s}`,
        ]),
      );
  });

  it("overlays: production pins the released image and scales up; staging runs one of each", () => {
    const images = (objects: Manifest[]) =>
      new Set(
        objects
          .filter((o) => o.kind === "Deployment")
          .map((o) => spec(o).template.spec.containers[0].image),
      );
    expect(images(renders["overlays/production"]!)).toEqual(
      new Set(["registry.example/svc-platform:0.1.0"]),
    );
    expect(spec(find(renders["overlays/production"]!, "Deployment", "gateway")).replicas).toBe(3);
    expect(spec(find(renders["overlays/production"]!, "Deployment", "bots")).replicas).toBe(3);
    const staging = renders["overlays/staging"]!;
    for (const s of SERVICES) {
      expect(spec(find(staging, "Deployment", s)).replicas, s).toBe(1);
      expect(spec(find(staging, "PodDisruptionBudget", s)), s).toEqual({
        selector: { matchLabels: { "app.kubernetes.io/name": s } },
        maxUnavailable: 1,
      });
    }
    expect(spec(find(staging, "Cluster", "svc-pg")).instances).toBe(1);
  });

  it("the pods that run strategy code (bots) run under gVisor's RuntimeClass, which the cluster objects define", () => {
    expect(cluster.map(id)).toEqual(["RuntimeClass/gvisor"]);
    expect(cluster[0]).toMatchObject({ apiVersion: "node.k8s.io/v1", handler: "runsc" });
    for (const dir of ["base", "overlays/production", "overlays/staging"]) {
      const bots = find(renders[dir]!, "Deployment", "bots");
      expect(spec(bots).template.spec.runtimeClassName, dir).toBe("gvisor");
    }
  });

  it("the CRDs: a schema for spec and status, the status subresource, and kubectl columns", () => {
    for (const crd of crds) {
      for (const v of spec(crd).versions) {
        expect(v.subresources, crd.metadata.name).toEqual({ status: {} });
        const root = v.schema.openAPIV3Schema;
        expect(root.required).toContain("spec");
        expect(Object.keys(root.properties.spec.properties).length).toBeGreaterThan(2);
        expect(root.properties.status.type).toBe("object");
        expect(v.additionalPrinterColumns.length).toBeGreaterThan(1);
      }
    }
  });
});

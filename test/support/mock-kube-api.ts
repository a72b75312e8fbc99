import http from "node:http";
import type { AddressInfo } from "node:net";
import { parse as parseYaml } from "yaml";

/**
 * A stand-in for a Kubernetes API server (none runs here) speaking its wire protocol for what
 * the platform does through `@kubernetes/client-node`:
 * - discovery of the custom resources' group (`GET /apis/svc.example.io/v1`, an APIResourceList),
 * - list (with the list's resourceVersion) and get,
 * - watch: `?watch=true&resourceVersion=N` answered as chunked JSON lines of ADDED, MODIFIED and
 *   DELETED events after N, ended after `timeoutSeconds`; a resourceVersion older than the kept
 *   history gets an ERROR event with a 410 Expired Status, as the API server sends it,
 * - server-side apply (`PATCH` with `application/apply-patch+yaml` and `fieldManager`): fields
 *   are owned by managers (`metadata.managedFields`), a field another manager owns with another
 *   value is a 409 Conflict unless `force=true`, fields a manager stops applying are removed,
 *   `status` in the body is ignored (status subresource), generation moves with the spec,
 * - the status subresource by JSON merge patch (RFC 7386), leaving spec and generation alone,
 * - apps/v1 Deployments (the bots' runner workloads): discovery, list, get and server-side apply
 *   as above, and their scale subresource by merge patch,
 * - delete of a named object (a `Status` of Success, 404 when it is not there); dependents are
 *   not collected (no garbage collector runs here).
 * It checks the bearer token and the content types and answers errors as a `Status`. Every
 * request is recorded (method, path with query, content type, parsed body) so a test can see
 * what the client library really sent.
 */
/** A stored object as the API server keeps it: metadata it manages, a free-form spec and status. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    [field: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  contentType?: string;
  body?: unknown;
  /** Arrived while the server was hung: never answered. */
  held?: boolean;
}

const GROUP = "svc.example.io";
const KINDS: Record<string, { kind: string; singular: string }> = {
  bots: { kind: "Bot", singular: "bot" },
  killswitches: { kind: "KillSwitch", singular: "killswitch" },
};
/** The kinds served per API group (version v1 for each): the platform's own and the runner workloads'. */
const GROUPS: Record<string, Record<string, { kind: string; singular: string }>> = {
  [GROUP]: KINDS,
  apps: { deployments: { kind: "Deployment", singular: "deployment" } },
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The leaf paths of an object (arrays are leaves), as dotted names. */
function leaves(v: Json, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, x] of Object.entries(v)) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (isObject(x) && Object.keys(x).length) for (const [q, y] of leaves(x, p)) out.set(q, y);
    else out.set(p, x);
  }
  return out;
}
const getPath = (v: Json, p: string): unknown =>
  p.split(".").reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), v);
function setPath(v: Json, p: string, value: unknown): void {
  const keys = p.split(".");
  let o = v;
  for (const k of keys.slice(0, -1)) o = (isObject(o[k]) ? o[k] : (o[k] = {})) as Json;
  o[keys.at(-1)!] = value;
}
function deletePath(v: Json, p: string): void {
  const keys = p.split(".");
  const parent = getPath(v, keys.slice(0, -1).join("."));
  if (isObject(parent)) delete parent[keys.at(-1)!];
}
/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
/** managedFields' FieldsV1 form of a set of dotted paths. */
function fieldsV1(paths: Iterable<string>): Json {
  const root: Json = {};
  for (const p of paths) {
    let o = root;
    for (const k of p.split(".")) o = (o[`f:${k}`] ??= {}) as Json;
  }
  return root;
}

export async function startMockKubeApi(token: string) {
  const objects = new Map<string, KubeObject>();
  // Who owns which fields of each object: key -> manager -> dotted paths.
  const owners = new Map<string, Map<string, Set<string>>>();
  const history: Array<{ rv: number; type: string; key: string; object: KubeObject }> = [];
  const watchers = new Set<{ prefix: string; res: http.ServerResponse }>();
  const requests: RecordedRequest[] = [];
  let version = 100;
  let compactedThrough = 0;
  let hung = false;

  const stamp = (key: string, obj: KubeObject, type: "ADDED" | "MODIFIED"): KubeObject => {
    const rv = version++;
    const managers = owners.get(key);
    const stored: KubeObject = {
      ...obj,
      metadata: {
        ...obj.metadata,
        resourceVersion: String(rv),
        ...(managers?.size
          ? {
              managedFields: [...managers].map(([manager, paths]) => ({
                manager,
                operation: "Apply",
                apiVersion: obj.apiVersion,
                fieldsType: "FieldsV1",
                fieldsV1: fieldsV1(paths),
              })),
            }
          : {}),
      },
    };
    objects.set(key, stored);
    emit(rv, type, key, stored);
    return stored;
  };
  const emit = (rv: number, type: string, key: string, object: KubeObject) => {
    history.push({ rv, type, key, object });
    for (const w of watchers)
      if (key.startsWith(w.prefix)) w.res.write(JSON.stringify({ type, object }) + "\n");
  };

  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        try {
          body = parseYaml(raw);
        } catch {
          body = raw;
        }
      }
      const recorded: RecordedRequest = {
        method: req.method!,
        path: req.url!,
        contentType: req.headers["content-type"],
        ...(body === undefined ? {} : { body }),
      };
      requests.push(recorded);
      // An API server that accepted the connection and never answers.
      if (hung) return void (recorded.held = true);
      const reply = (code: number, obj: unknown) =>
        res.writeHead(code, { "content-type": "application/json" }).end(JSON.stringify(obj));
      const status = (code: number, reason: string, message: string) =>
        reply(code, {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          reason,
          message,
          code,
        });
      if (req.headers.authorization !== `Bearer ${token}`)
        return status(401, "Unauthorized", "Unauthorized");
      const url = new URL(req.url!, "http://x");
      const contentType = req.headers["content-type"]?.split(";")[0];
      const unsupported = () =>
        status(
          415,
          "UnsupportedMediaType",
          `the body of the request was in an unknown format - accepted media types include: application/merge-patch+json`,
        );

      const discovery = /^\/apis\/([^/]+)\/v1$/.exec(url.pathname);
      if (req.method === "GET" && discovery && GROUPS[discovery[1]!])
        return reply(200, {
          kind: "APIResourceList",
          apiVersion: "v1",
          groupVersion: `${discovery[1]}/v1`,
          resources: Object.entries(GROUPS[discovery[1]!]!).flatMap(([plural, k]) => [
            {
              name: plural,
              singularName: k.singular,
              namespaced: true,
              kind: k.kind,
              verbs: ["delete", "get", "list", "patch", "create", "update", "watch"],
            },
            {
              name: `${plural}/status`,
              singularName: "",
              namespaced: true,
              kind: k.kind,
              verbs: ["get", "patch", "update"],
            },
          ]),
        });

      const scale = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)\/scale$/.exec(
        url.pathname,
      );
      if (scale) {
        const [, ns, name] = scale;
        if (req.method !== "PATCH")
          return status(405, "MethodNotAllowed", "only PATCH of the scale subresource is served");
        if (contentType !== "application/merge-patch+json") return unsupported();
        const key = `${ns}/deployments/${name}`;
        const prev = objects.get(key);
        if (!prev) return status(404, "NotFound", `deployments.apps "${name}" not found`);
        const replicas = (body as { spec?: { replicas?: number } }).spec?.replicas;
        stamp(key, { ...prev, spec: { ...prev.spec, replicas } }, "MODIFIED");
        return reply(200, {
          kind: "Scale",
          apiVersion: "autoscaling/v1",
          metadata: { name, namespace: ns },
          spec: { replicas },
          status: { replicas: prev.spec?.replicas ?? 0 },
        });
      }

      const m =
        /^\/apis\/([^/]+)\/v1\/namespaces\/([^/]+)\/([a-z]+)(?:\/([^/]+))?(\/status)?$/.exec(
          url.pathname,
        );
      if (!m || !GROUPS[m[1]!]?.[m[3]!])
        return status(404, "NotFound", "the server could not find the requested resource");
      const [, group, ns, plural, name, sub] = m as unknown as [
        string,
        string,
        string,
        string,
        string?,
        string?,
      ];
      const prefix = `${ns}/${plural}/`;
      const key = `${prefix}${name}`;
      const kind = GROUPS[group]![plural]!.kind;

      if (req.method === "GET" && !name && url.searchParams.get("watch") === "true")
        return watch(res, prefix, url.searchParams);
      if (req.method === "GET" && !name)
        return reply(200, {
          apiVersion: `${group}/v1`,
          kind: `${kind}List`,
          metadata: { resourceVersion: String(version - 1) },
          items: [...objects.entries()].filter(([k]) => k.startsWith(prefix)).map(([, v]) => v),
        });
      if (req.method === "GET" && name && !sub) {
        const found = objects.get(key);
        return found
          ? reply(200, found)
          : status(404, "NotFound", `${plural}.${group} "${name}" not found`);
      }
      if (req.method === "PATCH" && name && !sub) {
        if (contentType !== "application/apply-patch+yaml") return unsupported();
        const manager = url.searchParams.get("fieldManager");
        if (!manager)
          return status(
            422,
            "Invalid",
            'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
          );
        if (!isObject(body)) return status(400, "BadRequest", "the body is not an object");
        const obj = body as KubeObject;
        if (obj.apiVersion !== `${group}/v1` || obj.kind !== kind)
          return status(
            400,
            "BadRequest",
            `the body's apiVersion and kind must be ${group}/v1 ${kind}`,
          );
        if (obj.metadata?.name !== name)
          return status(
            400,
            "BadRequest",
            "the name of the object does not match the name on the URL",
          );
        return apply(key, obj, manager, url.searchParams.get("force") === "true");
      }
      if (req.method === "PATCH" && name && sub) {
        if (contentType !== "application/merge-patch+json") return unsupported();
        const prev = objects.get(key);
        if (!prev) return status(404, "NotFound", `${plural}.${group} "${name}" not found`);
        const patched = mergePatch(prev.status ?? {}, (body as { status?: unknown }).status ?? {});
        return reply(200, stamp(key, { ...prev, status: patched as Json }, "MODIFIED"));
      }
      if (req.method === "DELETE" && name && !sub) {
        const prev = objects.get(key);
        if (!prev) return status(404, "NotFound", `${plural}.${group} "${name}" not found`);
        objects.delete(key);
        owners.delete(key);
        const rv = version++;
        emit(rv, "DELETED", key, {
          ...prev,
          metadata: { ...prev.metadata, resourceVersion: String(rv) },
        });
        return reply(200, {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Success",
          details: { name, group, kind: plural, uid: prev.metadata.uid },
        });
      }
      return status(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
      );

      function apply(key: string, obj: KubeObject, manager: string, force: boolean) {
        const prev = objects.get(key);
        const managers = owners.get(key) ?? new Map<string, Set<string>>();
        const { status: _ignored, apiVersion: _a, kind: _k, ...content } = obj;
        const { name: _n, namespace: _ns, ...meta } = obj.metadata;
        const applied = leaves({ ...content, metadata: meta });
        const current = (prev ?? { metadata: { name } }) as unknown as Json;
        const conflicts: string[] = [];
        for (const [path, value] of applied)
          for (const [other, paths] of managers)
            if (other !== manager && paths.has(path)) {
              if (JSON.stringify(getPath(current, path)) === JSON.stringify(value)) continue;
              if (force) paths.delete(path);
              else conflicts.push(`conflict with "${other}": .${path}`);
            }
        if (conflicts.length)
          return status(
            409,
            "Conflict",
            `Apply failed with ${conflicts.length} conflict${conflicts.length > 1 ? "s" : ""}: ${conflicts.join("; ")}`,
          );
        const next = structuredClone(current) as unknown as KubeObject;
        const mine = managers.get(manager) ?? new Set<string>();
        const ownedByOthers = (p: string) =>
          [...managers].some(([other, paths]) => other !== manager && paths.has(p));
        for (const p of mine)
          if (!applied.has(p) && !ownedByOthers(p)) deletePath(next as unknown as Json, p);
        for (const [p, v] of applied) setPath(next as unknown as Json, p, structuredClone(v));
        managers.set(manager, new Set(applied.keys()));
        for (const [other, paths] of managers) if (!paths.size) managers.delete(other);
        owners.set(key, managers);
        const specChanged = JSON.stringify(prev?.spec) !== JSON.stringify(next.spec);
        next.apiVersion = obj.apiVersion;
        next.kind = obj.kind;
        next.metadata = {
          ...next.metadata,
          name: obj.metadata.name,
          namespace: key.split("/")[0],
          uid: prev?.metadata.uid ?? `uid-${version}`,
          generation: (prev?.metadata.generation ?? 0) + (prev && !specChanged ? 0 : 1),
        };
        if (prev?.status) next.status = prev.status;
        return reply(prev ? 200 : 201, stamp(key, next, prev ? "MODIFIED" : "ADDED"));
      }
    });
  });

  function watch(res: http.ServerResponse, prefix: string, q: URLSearchParams) {
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    // The API server answers a watch at once, events or not.
    res.flushHeaders();
    const from = q.get("resourceVersion") ?? "";
    const w = { prefix, res };
    if (from && from !== "0" && Number(from) < compactedThrough) {
      const message = `too old resource version: ${from} (${compactedThrough})`;
      res.end(
        JSON.stringify({
          type: "ERROR",
          object: {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message,
            reason: "Expired",
            code: 410,
          },
        }) + "\n",
      );
      return;
    }
    if (!from || from === "0") {
      for (const [k, o] of objects)
        if (k.startsWith(prefix)) res.write(JSON.stringify({ type: "ADDED", object: o }) + "\n");
    } else {
      for (const e of history)
        if (e.rv > Number(from) && e.key.startsWith(prefix))
          res.write(JSON.stringify({ type: e.type, object: e.object }) + "\n");
    }
    watchers.add(w);
    const seconds = Number(q.get("timeoutSeconds") ?? 0);
    const timer = seconds > 0 ? setTimeout(() => res.end(), seconds * 1000) : undefined;
    const forget = () => {
      clearTimeout(timer);
      watchers.delete(w);
    };
    // (the request's own "close" fires once its body is read, so the response's is the one)
    res.on("close", forget);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    objects,
    requests,
    /** Open watch streams. */
    watchCount: () => watchers.size,
    /** From now on, accept requests and never answer them (a hung API server). */
    hang() {
      hung = true;
    },
    /** Answer again (requests held while hung stay unanswered). */
    resume() {
      hung = false;
    },
    /** Creates or replaces an object as an operator's `kubectl apply` would (manager kubectl). */
    put(ns: string, plural: string, obj: KubeObject) {
      const key = `${ns}/${plural}/${obj.metadata.name}`;
      const prev = objects.get(key);
      const specChanged = JSON.stringify(prev?.spec) !== JSON.stringify(obj.spec);
      const { status: _s, apiVersion: _a, kind: _k, ...content } = obj;
      const { name: _n, namespace: _ns, ...meta } = obj.metadata;
      const managers = owners.get(key) ?? new Map<string, Set<string>>();
      managers.set("kubectl", new Set(leaves({ ...content, metadata: meta }).keys()));
      owners.set(key, managers);
      stamp(
        key,
        {
          ...obj,
          status: prev?.status ?? obj.status,
          metadata: {
            ...obj.metadata,
            namespace: ns,
            generation: (prev?.metadata.generation ?? 0) + (prev && !specChanged ? 0 : 1),
            uid: prev?.metadata.uid ?? `uid-${version}`,
          },
        },
        prev ? "MODIFIED" : "ADDED",
      );
    },
    /**
     * Deletes an object. `silently`: no DELETED event reaches a watch or the history (an
     * event lost while a watch was down); only a list shows it gone.
     */
    remove(ns: string, plural: string, name: string, o: { silently?: boolean } = {}) {
      const key = `${ns}/${plural}/${name}`;
      const prev = objects.get(key);
      if (!prev) return;
      objects.delete(key);
      owners.delete(key);
      const rv = version++;
      if (!o.silently)
        emit(rv, "DELETED", key, {
          ...prev,
          metadata: { ...prev.metadata, resourceVersion: String(rv) },
        });
    },
    /**
     * Forgets the event history (etcd compaction) and ends every open watch: a client that
     * watches again from an older resourceVersion is told 410 Expired and must list again.
     */
    expireHistory() {
      compactedThrough = version - 1;
      history.length = 0;
      for (const w of watchers) w.res.end();
      watchers.clear();
    },
    stop: () =>
      new Promise<void>((r) => {
        for (const w of watchers) w.res.end();
        // A hung request would hold close() for ever.
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

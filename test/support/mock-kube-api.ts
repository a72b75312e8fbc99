import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for a Kubernetes API server (none runs here) that speaks its REST protocol for the
 * calls the platform makes on its custom resources (group svc.example.io/v1): list, server-side
 * apply, and merge-patch of the status subresource. It checks the bearer token and the content
 * types, keeps the objects, and answers like the API server (objects with uid and
 * resourceVersion, or a Status on error).
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

export async function startMockKubeApi(token: string) {
  const objects = new Map<string, KubeObject>();
  const requests: Array<{ method: string; path: string; contentType?: string }> = [];
  let version = 1;
  let hung = false;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      requests.push({
        method: req.method!,
        path: req.url!,
        contentType: req.headers["content-type"],
      });
      const reply = (code: number, obj: unknown) =>
        res.writeHead(code, { "content-type": "application/json" }).end(JSON.stringify(obj));
      const status = (code: number, reason: string, message: string) =>
        reply(code, { kind: "Status", apiVersion: "v1", status: "Failure", reason, message, code });
      if (hung) return; // an API server that accepted the connection and never answers
      if (req.headers.authorization !== `Bearer ${token}`)
        return status(401, "Unauthorized", "Unauthorized");
      const url = new URL(req.url!, "http://x");
      const scale = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)\/scale$/.exec(
        url.pathname,
      );
      if (scale) {
        const [, ns, name] = scale;
        if (req.method !== "PATCH")
          return status(405, "MethodNotAllowed", "only PATCH of the scale subresource is served");
        if (req.headers["content-type"] !== "application/merge-patch+json")
          return status(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format",
          );
        const key = `${ns}/deployments/${name}`;
        const prev = objects.get(key);
        if (!prev) return status(404, "NotFound", `deployments.apps "${name}" not found`);
        const replicas = JSON.parse(body).spec?.replicas;
        objects.set(key, { ...prev, spec: { ...prev.spec, replicas } });
        return reply(200, {
          kind: "Scale",
          apiVersion: "autoscaling/v1",
          metadata: { name, namespace: ns },
          spec: { replicas },
          status: { replicas: prev.spec?.replicas ?? 0 },
        });
      }
      const m =
        /^\/apis\/svc\.example\.io\/v1\/namespaces\/([^/]+)\/([a-z]+)(?:\/([^/]+))?(\/status)?$/.exec(
          url.pathname,
        );
      if (!m) return status(404, "NotFound", "the server could not find the requested resource");
      const [, ns, plural, name, sub] = m;
      const key = `${ns}/${plural}/${name}`;
      if (req.method === "GET" && !name)
        return reply(200, {
          kind: "List",
          items: [...objects.entries()]
            .filter(([k]) => k.startsWith(`${ns}/${plural}/`))
            .map(([, v]) => v),
        });
      if (req.method === "PATCH" && name && !sub) {
        if (req.headers["content-type"] !== "application/apply-patch+yaml")
          return status(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format",
          );
        const obj = JSON.parse(body);
        const created = !objects.has(key);
        const prev = objects.get(key);
        const stored = {
          ...obj,
          status: prev?.status,
          metadata: {
            ...obj.metadata,
            uid: prev?.metadata.uid ?? `uid-${version}`,
            generation: (prev?.metadata.generation ?? 0) + 1,
            resourceVersion: String(version++),
          },
        };
        objects.set(key, stored);
        return reply(created ? 201 : 200, stored);
      }
      if (req.method === "PATCH" && name && sub) {
        if (req.headers["content-type"] !== "application/merge-patch+json")
          return status(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format",
          );
        const prev = objects.get(key);
        if (!prev) return status(404, "NotFound", `${plural} "${name}" not found`);
        const patch = JSON.parse(body);
        const stored = {
          ...prev,
          status: { ...prev.status, ...patch.status },
          metadata: { ...prev.metadata, resourceVersion: String(version++) },
        };
        objects.set(key, stored);
        return reply(200, stored);
      }
      return status(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    objects,
    requests,
    /** From now on, accept requests and never answer them (a hung API server). */
    hang() {
      hung = true;
    },
    /** Creates or replaces an object directly, as kubectl apply by an operator would. */
    put(ns: string, plural: string, obj: KubeObject) {
      const key = `${ns}/${plural}/${obj.metadata.name}`;
      objects.set(key, {
        ...obj,
        metadata: {
          ...obj.metadata,
          namespace: ns,
          generation: (objects.get(key)?.metadata.generation ?? 0) + 1,
          uid: `uid-${version}`,
          resourceVersion: String(version++),
        },
      });
    },
    remove(ns: string, plural: string, name: string) {
      objects.delete(`${ns}/${plural}/${name}`);
    },
    stop: () =>
      new Promise<void>((r) => {
        // A hung request would hold close() for ever.
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

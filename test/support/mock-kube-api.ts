import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for a Kubernetes API server (none runs here) that speaks its wire protocol for the
 * one call the bots service makes: server-side apply of a Bot custom resource. It checks the
 * bearer token and the apply content type, keeps the objects, and answers like the API server
 * (the object with uid and resourceVersion, or a Status on error).
 */
export async function startMockKubeApi(token: string): Promise<{ url: string; objects: Map<string, any>; requests: Array<{ method: string; path: string; contentType?: string }>; stop(): Promise<void> }> {
  const objects = new Map<string, any>();
  const requests: Array<{ method: string; path: string; contentType?: string }> = [];
  let version = 1;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      requests.push({ method: req.method!, path: req.url!, contentType: req.headers["content-type"] });
      const status = (code: number, reason: string, message: string) =>
        res.writeHead(code, { "content-type": "application/json" }).end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason, message, code }));
      if (req.headers.authorization !== `Bearer ${token}`) return status(401, "Unauthorized", "Unauthorized");
      const m = /^\/apis\/svc\.example\.io\/v1\/namespaces\/([^/]+)\/bots\/([^/?]+)\?fieldManager=[^&]+&force=true$/.exec(req.url ?? "");
      if (req.method !== "PATCH" || !m) return status(404, "NotFound", "the server could not find the requested resource");
      if (req.headers["content-type"] !== "application/apply-patch+yaml") return status(415, "UnsupportedMediaType", "the body of the request was in an unknown format");
      const obj = JSON.parse(body);
      const key = `${m[1]}/${m[2]}`;
      const created = !objects.has(key);
      const stored = { ...obj, metadata: { ...obj.metadata, uid: objects.get(key)?.metadata.uid ?? `uid-${version}`, resourceVersion: String(version++) } };
      objects.set(key, stored);
      res.writeHead(created ? 201 : 200, { "content-type": "application/json" }).end(JSON.stringify(stored));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, objects, requests, stop: () => new Promise((r) => server.close(() => r())) };
}

/**
 * The few calls the platform makes to a Kubernetes API server, over its REST protocol: list
 * custom resources, server-side apply, merge-patch a status subresource. No client library is
 * installed for three calls; the paths and content types are the API server's.
 */
import { Code, ConnectError, errorDetailOf, svcError } from "../errors/index.js";

export interface KubeTarget {
  apiUrl: string;
  namespace: string;
  token?: string;
  /** Deadline of one call to the API server (SVC_KUBE_TIMEOUT_MS); default 10 s. */
  timeoutMs?: number;
}

export const SVC_GROUP = "svc.example.io/v1";

function resourceUrl(
  t: KubeTarget,
  plural: string,
  name?: string,
  sub?: string,
  query = "",
): string {
  const base = `${t.apiUrl.replace(/\/$/, "")}/apis/${SVC_GROUP}/namespaces/${encodeURIComponent(t.namespace)}/${plural}`;
  return `${base}${name ? `/${encodeURIComponent(name)}` : ""}${sub ? `/${sub}` : ""}${query}`;
}

async function call<T>(
  t: KubeTarget,
  method: string,
  url: string,
  body?: unknown,
  contentType?: string,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        accept: "application/json",
        ...(contentType ? { "content-type": contentType } : {}),
        ...(t.token ? { authorization: `Bearer ${t.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(t.timeoutMs ?? 10_000),
    });
  } catch (err) {
    throw svcError(
      Code.Unavailable,
      "kubernetes_unreachable",
      `the Kubernetes API server at ${t.apiUrl} did not answer ${method} within ${t.timeoutMs ?? 10_000} ms or cannot be reached`,
      {},
      { cause: err, headers: { "retry-after": "5" } },
    );
  }
  const answer = (await res.json().catch(() => ({}))) as T & { message?: string };
  if (!res.ok)
    throw svcError(
      Code.FailedPrecondition,
      "kubernetes_refused",
      `the Kubernetes API server refused ${method} ${plural(url)} (${res.status}): ${answer.message ?? res.statusText}`,
      { status: res.status },
    );
  return answer;
}

function plural(url: string): string {
  return new URL(url).pathname.split("/").slice(6).join("/");
}

/** Every custom resource of a kind in the namespace. */
export async function listResources<T>(t: KubeTarget, pluralName: string): Promise<T[]> {
  return (await call<{ items?: T[] }>(t, "GET", resourceUrl(t, pluralName))).items ?? [];
}

/** Creates or updates a resource in one idempotent call (server-side apply). */
export function applyResource<T>(
  t: KubeTarget,
  pluralName: string,
  name: string,
  object: unknown,
  fieldManager: string,
): Promise<T> {
  return call<T>(
    t,
    "PATCH",
    resourceUrl(t, pluralName, name, undefined, `?fieldManager=${fieldManager}&force=true`),
    object,
    "application/apply-patch+yaml",
  );
}

/** Sets fields of a resource's status subresource (JSON merge patch). */
export function patchStatus(
  t: KubeTarget,
  pluralName: string,
  name: string,
  status: object,
): Promise<unknown> {
  return call(
    t,
    "PATCH",
    resourceUrl(t, pluralName, name, "status"),
    { status },
    "application/merge-patch+json",
  );
}

/**
 * Sets the replicas of an apps/v1 Deployment through its scale subresource (JSON merge patch);
 * answers the replicas the API server recorded. A Deployment it does not know is a 404.
 */
export async function scaleDeployment(
  t: KubeTarget,
  name: string,
  replicas: number,
): Promise<number> {
  const url = `${t.apiUrl.replace(/\/$/, "")}/apis/apps/v1/namespaces/${encodeURIComponent(t.namespace)}/deployments/${encodeURIComponent(name)}/scale`;
  try {
    const scale = await call<{ spec?: { replicas?: number } }>(
      t,
      "PATCH",
      url,
      { spec: { replicas } },
      "application/merge-patch+json",
    );
    return scale.spec?.replicas ?? replicas;
  } catch (err) {
    if (err instanceof ConnectError && errorDetailOf(err).details.status === 404)
      throw svcError(
        Code.NotFound,
        "deployment_not_found",
        `no Deployment "${name}" in namespace ${t.namespace}`,
        { deployment_name: name, namespace: t.namespace },
      );
    throw err;
  }
}

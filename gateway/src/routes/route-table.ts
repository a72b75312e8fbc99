import {
  getOption,
  type DescMethodServerStreaming,
  type DescMethodUnary,
  type DescService,
} from "@bufbuild/protobuf";
import { auth, http, type AuthPolicy, type HttpRule } from "@svc/gen/svc/api/v1/annotations_pb.js";
import { parsePathTemplate, type PathTemplate } from "../transcode/path-template.js";

/** One REST route bound to one RPC, as read from the proto annotations. */
export interface RouteBinding {
  service: DescService;
  /** Unary, or server-streaming (answered as server-sent events or gathered into one body). */
  method: DescMethodUnary | DescMethodServerStreaming;
  httpMethod: string;
  path: PathTemplate;
  rule: HttpRule;
  policy: AuthPolicy | undefined;
}

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * Reads every RPC's `(svc.api.v1.http)` option into bindings. RPCs without one (internal
 * service-to-service calls) get no REST route. A malformed or duplicated route fails at start.
 */
export function buildRouteTable(services: DescService[]): RouteBinding[] {
  const bindings: RouteBinding[] = [];
  const seen = new Map<string, string>();
  for (const service of services) {
    for (const method of service.methods) {
      const rule = getOption(method, http) as HttpRule | undefined;
      if (!rule || !rule.path) continue;
      if (method.methodKind !== "unary" && method.methodKind !== "server_streaming")
        throw new Error(
          `${service.typeName}/${method.name}: only unary and server-streaming RPCs can have a REST route`,
        );
      const httpMethod = rule.method.toUpperCase();
      if (!METHODS.has(httpMethod))
        throw new Error(
          `${service.typeName}/${method.name}: unsupported HTTP method ${rule.method}`,
        );
      for (const template of [rule.path, ...rule.additionalPaths]) {
        const path = parsePathTemplate(template);
        for (const param of path.params) {
          if (!method.input.fields.some((f) => f.name === param)) {
            throw new Error(
              `${service.typeName}/${method.name}: path ${template} binds {${param}}, which ${method.input.typeName} lacks`,
            );
          }
        }
        const key = `${httpMethod} ${path.routerPath}`;
        const other = seen.get(key);
        if (other)
          throw new Error(
            `route ${httpMethod} ${template} is declared twice: ${other} and ${method.name}`,
          );
        seen.set(key, method.name);
        bindings.push({
          service,
          method: method as DescMethodUnary | DescMethodServerStreaming,
          httpMethod,
          path,
          rule,
          policy: getOption(method, auth) as AuthPolicy | undefined,
        });
      }
    }
  }
  return bindings;
}

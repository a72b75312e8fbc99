import { readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { getOption, type DescService } from "@bufbuild/protobuf";
import { http, type HttpRule } from "@svc/gen/svc/api/v1/annotations_pb.js";

/** One REST route of the platform, read from the proto annotations as the gateway reads them. */
export interface ApiRoute {
  /** `METHOD /path/{param}`, the form routeCommands and the allow-list use. */
  route: string;
  rpc: string;
}

const GEN_SVC = new URL("../../../gen/src/svc/", import.meta.url);

/** Every route the generated descriptors declare (the gateway serves exactly these). */
export async function apiRoutes(): Promise<ApiRoute[]> {
  const routes: ApiRoute[] = [];
  for (const dir of await readdir(fileURLToPath(GEN_SVC))) {
    const versionDir = new URL(`${dir}/v1/`, GEN_SVC);
    for (const file of await readdir(fileURLToPath(versionDir)).catch(() => [])) {
      if (!file.endsWith("_pb.js")) continue;
      const mod = (await import(new URL(file, versionDir).href)) as Record<string, unknown>;
      for (const value of Object.values(mod)) {
        const service = value as DescService;
        if (service?.kind !== "service") continue;
        for (const method of service.methods) {
          const rule = getOption(method, http) as HttpRule | undefined;
          if (!rule?.path) continue;
          for (const path of [rule.path, ...rule.additionalPaths])
            routes.push({
              route: `${rule.method.toUpperCase()} ${path}`,
              rpc: `${service.typeName}/${method.name}`,
            });
        }
      }
    }
  }
  // By path, then method: a resource's routes together.
  const key = (r: ApiRoute) => `${r.route.split(" ")[1]} ${r.route.split(" ")[0]}`;
  return routes.sort((a, b) => key(a).localeCompare(key(b)));
}

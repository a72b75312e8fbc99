import { getOption, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { Code, type ServiceImpl } from "@connectrpc/connect";
import { capability } from "@svc/gen/svc/api/v1/annotations_pb.js";
import { svcError } from "../errors/index.js";

// What completeService filled in this process, so the OpenAPI document of an all-in-one gateway
// marks exactly the routes that answer 501 (a standalone gateway has no service to ask).
const notBuilt = new Map<DescMethod, string>();

/** The capability an RPC lacks when completeService filled it with a 501, else undefined. */
export function notBuiltCapability(method: DescMethod): string | undefined {
  return notBuilt.get(method);
}

/**
 * Fills every RPC a service has not built with a handler that answers UNIMPLEMENTED naming the
 * missing capability (the gateway makes that a 501). Nothing pretends to work.
 *
 * @example router.service(BotsService, completeService(BotsService, { getBot, listBots }));
 */
export function completeService<S extends DescService>(
  service: S,
  impl: Partial<ServiceImpl<S>>,
): ServiceImpl<S> {
  const full: Record<string, unknown> = { ...impl };
  for (const method of service.methods) {
    if (full[method.localName]) {
      notBuilt.delete(method);
      continue;
    }
    const what = getOption(method, capability) || `${service.typeName}.${method.name}`;
    notBuilt.set(method, what);
    full[method.localName] = () => {
      throw svcError(
        Code.Unimplemented,
        "not_implemented",
        `${what} is not built yet: ${method.name} answers 501 until it is`,
        {
          capability: what,
          rpc: `${service.typeName}/${method.name}`,
        },
      );
    };
  }
  return full as ServiceImpl<S>;
}

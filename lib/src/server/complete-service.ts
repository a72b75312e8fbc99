import { getOption, type DescService } from "@bufbuild/protobuf";
import { Code, type ServiceImpl } from "@connectrpc/connect";
import { capability } from "@svc/gen/svc/api/v1/annotations_pb.js";
import { svcError } from "../errors/index.js";

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
    if (full[method.localName]) continue;
    const what = getOption(method, capability) || `${service.typeName}.${method.name}`;
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

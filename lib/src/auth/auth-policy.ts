import { create, getOption, type DescMethod } from "@bufbuild/protobuf";
import {
  auth as authOption,
  AuthMode,
  AuthPolicySchema,
  type AuthPolicy,
} from "@svc/gen/svc/api/v1/annotations_pb.js";

/**
 * The `(svc.api.v1.auth)` policy of an RPC. A method without the option, or with the mode left
 * unspecified, needs a user token (fail closed: never public by accident); scopes and flags that
 * were written are kept.
 *
 * @example policyOf(BotsService.method.getBot).scopes // ["read:bots"]
 */
export function policyOf(method: DescMethod): AuthPolicy {
  const policy = getOption(method, authOption);
  return policy.mode === AuthMode.UNSPECIFIED
    ? create(AuthPolicySchema, { ...policy, mode: AuthMode.USER })
    : policy;
}

/**
 * policyOf, remembered per method: getOption decodes the option bytes on every call, and the
 * policy of a method never changes while the process runs.
 *
 * @example const lookup = createPolicyLookup(); lookup(req.method);
 */
export function createPolicyLookup(): (method: DescMethod) => AuthPolicy {
  const known = new WeakMap<DescMethod, AuthPolicy>();
  return (method) => {
    let policy = known.get(method);
    if (!policy) known.set(method, (policy = policyOf(method)));
    return policy;
  };
}

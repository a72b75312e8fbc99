import { getOption, type DescMethod } from "@bufbuild/protobuf";
import { ConnectError, type Interceptor } from "@connectrpc/connect";
import {
  LicenseFeature as Feature,
  license_feature as licenseFeature,
} from "@svc/gen/svc/api/v1/annotations_pb.js";
import { Code, svcError } from "../errors/index.js";
import type { FeatureVerdict, LicenseFeature, LicenseGate } from "./license-gate.js";
import { requestIdKey } from "../telemetry/request-id.js";
import { connectErrorOf } from "../telemetry/server-interceptors.js";

/** The response header the spec names for a licensed route answered in grace. */
export const LICENSE_STATUS_HEADER = "x-service-license-status";

/**
 * Enforces each RPC's `(svc.api.v1.license_feature)`: with enforcement on, a gated RPC answers
 * only while the lease the gate verified is valid or in grace and entitles the feature; in grace
 * the answer carries `X-Service-License-Status: grace`; otherwise 403 `license_invalid` saying
 * why. It runs after auth, so a caller learns nothing of the license before it is known.
 *
 * @example interceptors: [logging, tracing, auth, createLicenseInterceptor(gate), validation]
 */
export function createLicenseInterceptor(gate: LicenseGate): Interceptor {
  const features = new Map<DescMethod, LicenseFeature | undefined>();
  const featureOf = (method: DescMethod) => {
    if (!features.has(method))
      features.set(method, entitlementName(getOption(method, licenseFeature)));
    return features.get(method);
  };
  return (next) => async (req) => {
    const feature = gate.enforced ? featureOf(req.method) : undefined;
    if (!feature) return next(req);
    const verdict = gate.admits(feature);
    if (!verdict.admitted) throw licenseRefusal(feature, verdict);
    if (!verdict.grace) return next(req);
    // In grace every answer of the route says so, a refusal by the handler too.
    try {
      const res = await next(req);
      res.header.set(LICENSE_STATUS_HEADER, "grace");
      return res;
    } catch (err) {
      const e =
        err instanceof ConnectError
          ? err
          : connectErrorOf(err, req.contextValues.get(requestIdKey));
      e.metadata.set(LICENSE_STATUS_HEADER, "grace");
      throw e;
    }
  };
}

/**
 * The 403 of a feature the lease does not admit, the same wherever the feature is checked (the
 * interceptor, or a handler that gates part of a route, as an MCP tool does).
 */
export function licenseRefusal(
  feature: LicenseFeature,
  verdict: Extract<FeatureVerdict, { admitted: false }>,
): ConnectError {
  return svcError(
    Code.PermissionDenied,
    "license_invalid",
    `${feature} needs a valid license lease: ${verdict.reason}`,
    {
      feature,
      license_status: verdict.standing.state,
      ...(verdict.standing.leaseId ? { lease_id: verdict.standing.leaseId } : {}),
    },
    { headers: { [LICENSE_STATUS_HEADER]: verdict.standing.state } },
  );
}

/** LICENSE_FEATURE_LIVE_TRADING -> "live_trading"; unspecified -> not gated. */
function entitlementName(f: Feature): LicenseFeature | undefined {
  if (f === Feature.UNSPECIFIED) return undefined;
  return Feature[f]!.toLowerCase() as LicenseFeature;
}

import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);
import {
  LIVENESS_SERVICE,
  assertListenAllowed,
  authSettingsFrom,
  closeOnSignals,
  completeService,
  createInProcessTransport,
  healthRoutes,
  internalInterceptors,
  isLoopbackHost,
  lazyTransport,
  notBuiltCapability,
  openPlatform,
  peerClient,
  remainingMs,
  resilientTransport,
  runStandalone,
  serverDeadlineInterceptor,
  standardInterceptors,
  startRpcServer,
  timeoutFromHeaders,
  withRequestDeadline
} from "./chunk-DWVGW34L.js";
import "./chunk-465YIRRN.js";
import "./chunk-NSXLARNB.js";
import "./chunk-6IOK32WY.js";
import "./chunk-WHDG35AA.js";
import "./chunk-VRQZRDEA.js";
export {
  LIVENESS_SERVICE,
  assertListenAllowed,
  authSettingsFrom,
  closeOnSignals,
  completeService,
  createInProcessTransport,
  healthRoutes,
  internalInterceptors,
  isLoopbackHost,
  lazyTransport,
  notBuiltCapability,
  openPlatform,
  peerClient,
  remainingMs,
  resilientTransport,
  runStandalone,
  serverDeadlineInterceptor,
  standardInterceptors,
  startRpcServer,
  timeoutFromHeaders,
  withRequestDeadline
};
//# sourceMappingURL=server-MR5JLQXN.js.map

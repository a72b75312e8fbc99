export { completeService, notBuiltCapability } from "./complete-service.js";
export { healthRoutes, LIVENESS_SERVICE, type ReadinessCheck } from "./health.js";
export { startRpcServer, type RunningServer } from "./grpc-server.js";
export { assertListenAllowed, isLoopbackHost, type ListenerAuth } from "./listen-guard.js";
export { closeOnSignals } from "./shutdown.js";
export {
  openPlatform,
  standardInterceptors,
  internalInterceptors,
  authSettingsFrom,
  type Platform,
  type ServiceModule,
} from "./platform.js";
export { runStandalone } from "./run-standalone.js";
export { peerClient, type PeerClient } from "./peer-client.js";
export {
  createInProcessTransport,
  type InProcessTransportOptions,
} from "./in-process-transport.js";
export { lazyTransport } from "./lazy-transport.js";
export { resilientTransport, type ResilienceOptions } from "./resilient-transport.js";
export {
  remainingMs,
  serverDeadlineInterceptor,
  timeoutFromHeaders,
  withRequestDeadline,
} from "./deadline-context.js";

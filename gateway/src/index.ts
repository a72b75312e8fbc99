export { createGateway, type GatewayBackend, type GatewayOptions } from "./create-gateway.js";
export { CLOSE_GRACE_MS, closeGateway } from "./close-gateway.js";
export { buildRouteTable, type RouteBinding } from "./routes/route-table.js";
export {
  HTTP_STATUS_OF_CODE,
  HTTP_STATUS_OF_MACHINE_CODE,
  httpStatusFor,
} from "./errors/http-status.js";

export {
  validateMessage,
  allowedEnumWireValues,
  enumValueWireName,
  fieldRules,
} from "./validate-message.js";
export { createValidationInterceptor } from "./validation-interceptor.js";
export { protoJsonToWire, toWireJson } from "./wire-json-out.js";

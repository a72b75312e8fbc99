export { validateMessage, allowedEnumWireValues, enumValueWireName } from "./validate-message.js";
export { createValidationInterceptor } from "./validation-interceptor.js";

import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);
import {
  require_dist
} from "./chunk-CWTYHV4Y.js";
import "./chunk-VRQZRDEA.js";
export default require_dist();
//# sourceMappingURL=dist-42GQZ4WL.js.map

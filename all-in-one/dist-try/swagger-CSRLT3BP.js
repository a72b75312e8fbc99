import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);
import {
  require_dist
} from "./chunk-CWTYHV4Y.js";
import {
  require_rfdc
} from "./chunk-CDTZE3PH.js";
import {
  __commonJS,
  __require
} from "./chunk-VRQZRDEA.js";

// node_modules/fastify-plugin/lib/getPluginName.js
var require_getPluginName = __commonJS({
  "node_modules/fastify-plugin/lib/getPluginName.js"(exports, module) {
    "use strict";
    var { basename, extname } = __require("node:path");
    var FP_STACK_TRACE_REG = /at\s(?:.*\.)?plugin\s.*\n\s*(.*)/;
    var LOCATION_REG = /:\d+:\d+\)?$/;
    module.exports = function getPluginName(fn) {
      if (fn.name.length > 0) return fn.name;
      const stackTraceLimit = Error.stackTraceLimit;
      Error.stackTraceLimit = 10;
      try {
        throw new Error("anonymous function");
      } catch (e) {
        Error.stackTraceLimit = stackTraceLimit;
        return extractPluginName(e.stack);
      }
    };
    function extractPluginName(stack) {
      const m = stack.match(FP_STACK_TRACE_REG);
      if (!m) return "anonymous";
      const fileName = basename(m[1].replaceAll("\\", "/")).replace(LOCATION_REG, "");
      return basename(fileName, extname(fileName));
    }
    module.exports.extractPluginName = extractPluginName;
  }
});

// node_modules/fastify-plugin/lib/toCamelCase.js
var require_toCamelCase = __commonJS({
  "node_modules/fastify-plugin/lib/toCamelCase.js"(exports, module) {
    "use strict";
    var KEBAB_REG = /-(.)/g;
    function upperFirst(_match, char) {
      return char.toUpperCase();
    }
    module.exports = function toCamelCase(name) {
      if (name[0] === "@") {
        name = name.slice(1).replace("/", "-");
      }
      return name.replace(KEBAB_REG, upperFirst);
    };
  }
});

// node_modules/fastify-plugin/index.js
var require_fastify_plugin = __commonJS({
  "node_modules/fastify-plugin/index.js"(exports, module) {
    "use strict";
    var getPluginName = require_getPluginName();
    var toCamelCase = require_toCamelCase();
    var kSkipOverride = /* @__PURE__ */ Symbol.for("skip-override");
    var kDisplayName = /* @__PURE__ */ Symbol.for("fastify.display-name");
    var kPluginMeta = /* @__PURE__ */ Symbol.for("plugin-meta");
    var count = 0;
    function plugin(fn, options = {}) {
      let autoName = false;
      if (fn?.default !== void 0) {
        fn = fn.default;
      }
      if (typeof fn !== "function") {
        throw new TypeError(
          `fastify-plugin expects a function, instead got a '${typeof fn}'`
        );
      }
      if (typeof options === "string") {
        options = {
          fastify: options
        };
      }
      if (typeof options !== "object" || Array.isArray(options) || options === null) {
        throw new TypeError("The options object should be an object");
      }
      if (options.fastify !== void 0 && typeof options.fastify !== "string") {
        throw new TypeError(`fastify-plugin expects a version string, instead got '${typeof options.fastify}'`);
      }
      if (options.name && typeof options.name !== "string") {
        throw new TypeError(`fastify-plugin expects a name string, instead got '${typeof options.name}'`);
      }
      if (!options.name) {
        autoName = true;
        options = { ...options, name: getPluginName(fn) + "-auto-" + count++ };
      }
      fn[kSkipOverride] = options.encapsulate !== true;
      fn[kDisplayName] = options.name;
      fn[kPluginMeta] = options;
      if (!fn.default) {
        fn.default = fn;
      }
      if (!autoName) {
        const camelCase = toCamelCase(options.name);
        if (!fn[camelCase]) {
          fn[camelCase] = fn;
        }
      }
      return fn;
    }
    module.exports = plugin;
    module.exports.default = plugin;
    module.exports.fastifyPlugin = plugin;
  }
});

// node_modules/@fastify/swagger/lib/util/format-param-url.js
var require_format_param_url = __commonJS({
  "node_modules/@fastify/swagger/lib/util/format-param-url.js"(exports, module) {
    "use strict";
    var COLON = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
    function formatParamUrl(str) {
      let i, char;
      let state = "skip";
      let path = "";
      let param = "";
      let level = 0;
      let regexp = 0;
      for (i = 0; i < str.length; i++) {
        char = str[i];
        switch (state) {
          case "colon": {
            if (COLON.indexOf(char) !== -1) {
              param += char;
            } else if (char === "(") {
              state = "regexp";
              level++;
            } else {
              state = "skip";
              path += "{" + param + "}";
              path += char;
              param = "";
            }
            break;
          }
          case "regexp": {
            if (char === "(") {
              level++;
            } else if (char === ")") {
              level--;
            }
            if (level === 0) {
              state = "skip";
              if (param === "") {
                regexp++;
                param = "regexp" + String(regexp);
              }
              path += "{" + param + "}";
              param = "";
            }
            break;
          }
          default: {
            if (char === ":" && str[i + 1] === ":") {
              path += char;
              i++;
            } else if (char === ":") {
              state = "colon";
            } else if (char === "(") {
              state = "regexp";
              level++;
            } else if (char === "*") {
              path += "{*}";
            } else {
              path += char;
            }
          }
        }
      }
      if (state === "colon" && param !== "") {
        path += "{" + param + "}";
      }
      return path;
    }
    module.exports = {
      formatParamUrl
    };
  }
});

// node_modules/@fastify/swagger/lib/mode/static.js
var require_static = __commonJS({
  "node_modules/@fastify/swagger/lib/mode/static.js"(exports, module) {
    "use strict";
    var path = __require("node:path");
    var fs = __require("node:fs");
    var yaml = require_dist();
    module.exports = function(fastify, opts, done) {
      if (!opts.specification) return done(new Error("specification is missing in the module options"));
      if (typeof opts.specification !== "object") return done(new Error("specification is not an object"));
      let swaggerObject = {};
      if (!opts.specification.path && !opts.specification.document) {
        return done(new Error("both specification.path and specification.document are missing, should be path to the file or swagger document spec"));
      } else if (opts.specification.path) {
        if (typeof opts.specification.path !== "string") return done(new Error("specification.path is not a string"));
        if (!fs.existsSync(path.resolve(opts.specification.path))) return done(new Error(`${opts.specification.path} does not exist`));
        const extName = path.extname(opts.specification.path).toLowerCase();
        if ([".yaml", ".json"].indexOf(extName) === -1) return done(new Error("specification.path extension name is not supported, should be one from ['.yaml', '.json']"));
        if (opts.specification.postProcessor && typeof opts.specification.postProcessor !== "function") return done(new Error("specification.postProcessor should be a function"));
        if (opts.specification.baseDir && typeof opts.specification.baseDir !== "string") return done(new Error("specification.baseDir should be string"));
        if (!opts.specification.baseDir) {
          opts.specification.baseDir = path.resolve(path.dirname(opts.specification.path));
        } else {
          while (opts.specification.baseDir.endsWith("/")) {
            opts.specification.baseDir = opts.specification.baseDir.slice(0, -1);
          }
        }
        const source = fs.readFileSync(
          path.resolve(opts.specification.path),
          "utf8"
        );
        switch (extName) {
          case ".yaml":
            swaggerObject = yaml.parse(source);
            break;
          case ".json":
            swaggerObject = JSON.parse(source);
            break;
        }
        if (opts.specification.postProcessor) {
          swaggerObject = opts.specification.postProcessor(swaggerObject);
        }
      } else {
        if (typeof opts.specification.document !== "object") return done(new Error("specification.document is not an object"));
        swaggerObject = opts.specification.document;
      }
      fastify.decorate(opts.decorator || "swagger", swagger);
      const cache = {
        swaggerObject: null,
        swaggerString: null
      };
      function swagger(opts2) {
        if (opts2?.yaml) {
          if (cache.swaggerString) return cache.swaggerString;
        } else {
          if (cache.swaggerObject) return cache.swaggerObject;
        }
        if (opts2?.yaml) {
          const swaggerString = yaml.stringify(swaggerObject, { strict: false });
          cache.swaggerString = swaggerString;
          return swaggerString;
        }
        cache.swaggerObject = swaggerObject;
        return swaggerObject;
      }
      done();
    };
  }
});

// node_modules/json-schema-resolver/node_modules/fast-uri/lib/utils.js
var require_utils = __commonJS({
  "node_modules/json-schema-resolver/node_modules/fast-uri/lib/utils.js"(exports, module) {
    "use strict";
    var isUUID = RegExp.prototype.test.bind(/^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/iu);
    var isIPv4 = RegExp.prototype.test.bind(/^(?:(?:25[0-5]|2[0-4]\d|1\d{2}|[1-9]\d|\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d{2}|[1-9]\d|\d)$/u);
    var isPort = RegExp.prototype.test.bind(/^\d*$/u);
    var isHexPair = RegExp.prototype.test.bind(/^[\da-f]{2}$/iu);
    var isUnreserved = RegExp.prototype.test.bind(/^[\da-z\-._~]$/iu);
    var isPathCharacter = RegExp.prototype.test.bind(/^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/u);
    var isQueryFragmentCharacter = RegExp.prototype.test.bind(/^[A-Za-z0-9\-._~!$&'()*+,;=:@/?]$/u);
    var isUserinfoCharacter = RegExp.prototype.test.bind(/^[A-Za-z0-9\-._~!$&'()*+,;=:]$/u);
    var BYTE_HEX = new Array(256);
    {
      const HEX_DIGITS = "0123456789ABCDEF";
      for (let i = 0; i < 256; i++) {
        BYTE_HEX[i] = "%" + HEX_DIGITS[i >> 4] + HEX_DIGITS[i & 15];
      }
    }
    function percentEncodeNonAscii(cp) {
      if (cp < 2048) {
        return BYTE_HEX[192 | cp >> 6] + BYTE_HEX[128 | cp & 63];
      }
      if (cp < 65536) {
        return BYTE_HEX[224 | cp >> 12] + BYTE_HEX[128 | cp >> 6 & 63] + BYTE_HEX[128 | cp & 63];
      }
      return BYTE_HEX[240 | cp >> 18] + BYTE_HEX[128 | cp >> 12 & 63] + BYTE_HEX[128 | cp >> 6 & 63] + BYTE_HEX[128 | cp & 63];
    }
    function stringArrayToHexStripped(input) {
      let acc = "";
      let code = 0;
      let i = 0;
      for (i = 0; i < input.length; i++) {
        code = input[i].charCodeAt(0);
        if (code === 48) {
          continue;
        }
        if (!(code >= 48 && code <= 57 || code >= 65 && code <= 70 || code >= 97 && code <= 102)) {
          return "";
        }
        acc += input[i];
        break;
      }
      for (i += 1; i < input.length; i++) {
        code = input[i].charCodeAt(0);
        if (!(code >= 48 && code <= 57 || code >= 65 && code <= 70 || code >= 97 && code <= 102)) {
          return "";
        }
        acc += input[i];
      }
      return acc;
    }
    var isHextet = RegExp.prototype.test.bind(/^[\dA-Fa-f]{1,4}$/);
    var isIPvFuture = RegExp.prototype.test.bind(/^[vV][\dA-Fa-f]+\.[A-Za-z\d\-._~!$&'()*+,;=:]+$/);
    var isZoneCharacter = RegExp.prototype.test.bind(/^[A-Za-z\d\-._~]$/);
    var nonSimpleDomain = RegExp.prototype.test.bind(/[^!"$&'()*+,\-.;=_`a-z{}~]/u);
    function isZoneIdentifier(zone) {
      if (zone.length === 0) return false;
      for (let i = 0; i < zone.length; i++) {
        if (isZoneCharacter(zone[i])) continue;
        if (zone[i] === "%" && i + 2 < zone.length && isHexPair(zone.slice(i + 1, i + 3))) {
          i += 2;
          continue;
        }
        return false;
      }
      return true;
    }
    function compressIPv6ZeroRun(hextets) {
      let bestStart = -1;
      let bestLength = 0;
      let runStart = -1;
      let runLength = 0;
      for (let i = 0; i < hextets.length; i++) {
        if (hextets[i] === "0") {
          if (runStart === -1) runStart = i;
          runLength++;
          if (runLength > bestLength) {
            bestLength = runLength;
            bestStart = runStart;
          }
        } else {
          runStart = -1;
          runLength = 0;
        }
      }
      if (bestLength < 2) return hextets.join(":");
      const head = hextets.slice(0, bestStart).join(":");
      const tail = hextets.slice(bestStart + bestLength).join(":");
      return head + "::" + tail;
    }
    function normalizeIPv6Address(input) {
      const compression = input.indexOf("::");
      if (compression !== -1 && input.indexOf("::", compression + 1) !== -1) return void 0;
      const left = compression === -1 ? input.split(":") : input.slice(0, compression).split(":");
      const right = compression === -1 ? [] : input.slice(compression + 2).split(":");
      if (compression !== -1) {
        if (left.length === 1 && left[0] === "") left.length = 0;
        if (right.length === 1 && right[0] === "") right.length = 0;
      }
      const parts = left.concat(right);
      let hextetCount = 0;
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i];
        if (part === "") return void 0;
        if (part.indexOf(".") !== -1) {
          if (i !== parts.length - 1 || compression !== -1 && right.length === 0 || !isIPv4(part)) return void 0;
          hextetCount += 2;
          continue;
        }
        if (!isHextet(part)) return void 0;
        parts[i] = parseInt(part, 16).toString(16);
        hextetCount++;
      }
      if (compression === -1) {
        if (hextetCount !== 8) return void 0;
        return compressIPv6ZeroRun(parts);
      }
      if (hextetCount >= 8) return void 0;
      const expanded = parts.slice(0, left.length);
      for (let i = hextetCount; i < 8; i++) expanded.push("0");
      for (let i = left.length; i < parts.length; i++) expanded.push(parts[i]);
      return compressIPv6ZeroRun(expanded);
    }
    function normalizeIPv6(host) {
      const bracketed = host[0] === "[" && host[host.length - 1] === "]";
      const hasBracket = host[0] === "[" || host[host.length - 1] === "]";
      if (hasBracket && !bracketed) return { host, isIPV6: false, error: true };
      let input = bracketed ? host.slice(1, -1) : host;
      if (bracketed && isIPvFuture(input)) {
        input = input.toLowerCase();
        return { host: `[${input}]`, escapedHost: input, isIPV6: false, isIPVFuture: true };
      }
      if (findToken(input, ":") < 2) {
        return { host, isIPV6: false, error: bracketed };
      }
      let zoneIdentifier = "";
      const zoneSeparator = input.indexOf("%");
      if (zoneSeparator !== -1) {
        const separatorLength = input.slice(zoneSeparator, zoneSeparator + 3).toLowerCase() === "%25" ? 3 : 1;
        zoneIdentifier = input.slice(zoneSeparator + separatorLength);
        if (!isZoneIdentifier(zoneIdentifier)) return { host, isIPV6: false, error: true };
        input = input.slice(0, zoneSeparator);
      }
      const address = normalizeIPv6Address(input);
      if (address === void 0) return { host, isIPV6: false, error: true };
      return {
        host: address + (zoneIdentifier ? "%" + zoneIdentifier : ""),
        escapedHost: address + (zoneIdentifier ? "%25" + zoneIdentifier : ""),
        isIPV6: true
      };
    }
    function findToken(str, token) {
      let ind = 0;
      for (let i = 0; i < str.length; i++) {
        if (str[i] === token) ind++;
      }
      return ind;
    }
    function removeDotSegments(path) {
      let input = path;
      const output = [];
      let nextSlash = -1;
      let len = 0;
      while (len = input.length) {
        if (len === 1) {
          if (input === ".") {
            break;
          } else if (input === "/") {
            output.push("/");
            break;
          } else {
            output.push(input);
            break;
          }
        } else if (len === 2) {
          if (input[0] === ".") {
            if (input[1] === ".") {
              break;
            } else if (input[1] === "/") {
              input = input.slice(2);
              continue;
            }
          } else if (input[0] === "/") {
            if (input[1] === "." || input[1] === "/") {
              output.push("/");
              break;
            }
          }
        } else if (len === 3) {
          if (input === "/..") {
            if (output.length !== 0) {
              output.pop();
            }
            output.push("/");
            break;
          }
        }
        if (input[0] === ".") {
          if (input[1] === ".") {
            if (input[2] === "/") {
              input = input.slice(3);
              continue;
            }
          } else if (input[1] === "/") {
            input = input.slice(2);
            continue;
          }
        } else if (input[0] === "/") {
          if (input[1] === ".") {
            if (input[2] === "/") {
              input = input.slice(2);
              continue;
            } else if (input[2] === ".") {
              if (input[3] === "/") {
                input = input.slice(3);
                if (output.length !== 0) {
                  output.pop();
                }
                continue;
              }
            }
          }
        }
        if ((nextSlash = input.indexOf("/", 1)) === -1) {
          output.push(input);
          break;
        } else {
          output.push(input.slice(0, nextSlash));
          input = input.slice(nextSlash);
        }
      }
      return output.join("");
    }
    function removeDotSegmentsRelative(path) {
      if (path === "" || path[0] === "/") {
        return removeDotSegments(path);
      }
      const segments = path.split("/");
      const last = segments.length - 1;
      const output = [];
      let trailingDirectory = false;
      for (let i = 0; i <= last; i++) {
        const segment = segments[i];
        if (segment === "." || segment === "..") {
          if (segment === "..") {
            if (output.length !== 0 && output[output.length - 1] !== "..") {
              output.pop();
            } else {
              output.push("..");
            }
          }
          trailingDirectory = i === last;
        } else {
          output.push(segment);
        }
      }
      if (trailingDirectory && output[output.length - 1] !== "..") {
        output.push("");
      }
      if (output.length === 0 || output[0] === "" || output[0].includes(":")) {
        output.unshift(".");
      }
      return output.join("/");
    }
    var HOST_DELIMS = { "@": "%40", "/": "%2F", "?": "%3F", "#": "%23", ":": "%3A" };
    var HOST_DELIM_RE = /[@/?#:]/g;
    var HOST_DELIM_NO_COLON_RE = /[@/?#]/g;
    function reescapeHostDelimiters(host, isIP) {
      const re = isIP ? HOST_DELIM_NO_COLON_RE : HOST_DELIM_RE;
      re.lastIndex = 0;
      return host.replace(re, (ch) => HOST_DELIMS[ch]);
    }
    function normalizePercentEncoding(input, decodeUnreserved = false) {
      if (input.indexOf("%") === -1) {
        return input;
      }
      let output = "";
      for (let i = 0; i < input.length; i++) {
        if (input[i] === "%" && i + 2 < input.length) {
          const hex = input.slice(i + 1, i + 3);
          if (isHexPair(hex)) {
            const normalizedHex = hex.toUpperCase();
            const decoded = String.fromCharCode(parseInt(normalizedHex, 16));
            if (decodeUnreserved && isUnreserved(decoded)) {
              output += decoded;
            } else {
              output += "%" + normalizedHex;
            }
            i += 2;
            continue;
          }
        }
        output += input[i];
      }
      return output;
    }
    function normalizePathEncoding(input) {
      let output = "";
      for (let i = 0; i < input.length; i++) {
        const ch = input[i];
        if (ch === "%" && i + 2 < input.length) {
          const hex = input.slice(i + 1, i + 3);
          if (isHexPair(hex)) {
            const normalizedHex = hex.toUpperCase();
            const decoded = String.fromCharCode(parseInt(normalizedHex, 16));
            if (decoded !== "." && isUnreserved(decoded)) {
              output += decoded;
            } else {
              output += "%" + normalizedHex;
            }
            i += 2;
            continue;
          }
        }
        if (isPathCharacter(ch)) {
          output += ch;
        } else {
          const code = input.charCodeAt(i);
          if (code < 128) {
            output += isEscapeSafe(code) ? ch : BYTE_HEX[code];
          } else if (code < 55296 || code > 57343) {
            output += percentEncodeNonAscii(code);
          } else if (code <= 56319 && i + 1 < input.length) {
            const low = input.charCodeAt(i + 1);
            if (low >= 56320 && low <= 57343) {
              output += percentEncodeNonAscii(65536 + (code - 55296 << 10) + (low - 56320));
              i++;
            } else {
              output += percentEncodeNonAscii(65533);
            }
          } else {
            output += percentEncodeNonAscii(65533);
          }
        }
      }
      return output;
    }
    function serializePathEncoding(input, pathNoScheme = false) {
      let output = "";
      let firstSegment = pathNoScheme && input[0] !== "/";
      for (let i = 0; i < input.length; i++) {
        const ch = input[i];
        if (ch === "%" && i + 2 < input.length) {
          const hex = input.slice(i + 1, i + 3);
          if (isHexPair(hex)) {
            output += "%" + hex.toUpperCase();
            i += 2;
            continue;
          }
        }
        if (ch === "/") {
          firstSegment = false;
        }
        if (isPathCharacter(ch) && (ch !== ":" || !firstSegment)) {
          output += ch;
        } else {
          const code = input.charCodeAt(i);
          if (code < 128) {
            output += BYTE_HEX[code];
          } else if (code < 55296 || code > 57343) {
            output += percentEncodeNonAscii(code);
          } else if (code <= 56319 && i + 1 < input.length) {
            const low = input.charCodeAt(i + 1);
            if (low >= 56320 && low <= 57343) {
              output += percentEncodeNonAscii(65536 + (code - 55296 << 10) + (low - 56320));
              i++;
            } else {
              output += percentEncodeNonAscii(65533);
            }
          } else {
            output += percentEncodeNonAscii(65533);
          }
        }
      }
      return output;
    }
    function encodeComponent(input, isAllowed) {
      let output = "";
      for (let i = 0; i < input.length; i++) {
        const ch = input[i];
        if (ch === "%" && i + 2 < input.length) {
          const hex = input.slice(i + 1, i + 3);
          if (isHexPair(hex)) {
            output += "%" + hex.toUpperCase();
            i += 2;
            continue;
          }
        }
        if (isAllowed(ch)) {
          output += ch;
        } else {
          const code = input.charCodeAt(i);
          if (code < 128) {
            output += BYTE_HEX[code];
          } else if (code < 55296 || code > 57343) {
            output += percentEncodeNonAscii(code);
          } else if (code <= 56319 && i + 1 < input.length) {
            const low = input.charCodeAt(i + 1);
            if (low >= 56320 && low <= 57343) {
              output += percentEncodeNonAscii(65536 + (code - 55296 << 10) + (low - 56320));
              i++;
            } else {
              output += percentEncodeNonAscii(65533);
            }
          } else {
            output += percentEncodeNonAscii(65533);
          }
        }
      }
      return output;
    }
    function encodeUserinfo(input) {
      return encodeComponent(input, isUserinfoCharacter);
    }
    function encodeQuery(input) {
      return encodeComponent(input, isQueryFragmentCharacter);
    }
    function encodeFragment(input) {
      return encodeComponent(input, isQueryFragmentCharacter);
    }
    function isEscapeSafe(cp) {
      return cp >= 48 && cp <= 57 || cp >= 65 && cp <= 90 || cp >= 97 && cp <= 122 || cp === 42 || cp === 43 || cp === 45 || cp === 46 || cp === 47 || cp === 64 || cp === 95;
    }
    function normalizeQueryFragmentEncoding(input) {
      let output = "";
      for (let i = 0; i < input.length; i++) {
        const ch = input[i];
        if (ch === "%" && i + 2 < input.length) {
          const hex = input.slice(i + 1, i + 3);
          if (isHexPair(hex)) {
            const normalizedHex = hex.toUpperCase();
            const decoded = String.fromCharCode(parseInt(normalizedHex, 16));
            if (isUnreserved(decoded)) {
              output += decoded;
            } else {
              output += "%" + normalizedHex;
            }
            i += 2;
            continue;
          }
        }
        if (isQueryFragmentCharacter(ch)) {
          output += ch;
        } else {
          const code = input.charCodeAt(i);
          if (code < 128) {
            output += isEscapeSafe(code) ? ch : BYTE_HEX[code];
          } else if (code < 55296 || code > 57343) {
            output += percentEncodeNonAscii(code);
          } else if (code <= 56319 && i + 1 < input.length) {
            const low = input.charCodeAt(i + 1);
            if (low >= 56320 && low <= 57343) {
              output += percentEncodeNonAscii(65536 + (code - 55296 << 10) + (low - 56320));
              i++;
            } else {
              output += percentEncodeNonAscii(65533);
            }
          } else {
            output += percentEncodeNonAscii(65533);
          }
        }
      }
      return output;
    }
    function escapePreservingEscapes(input) {
      let output = "";
      for (let i = 0; i < input.length; i++) {
        if (input[i] === "%" && i + 2 < input.length) {
          const hex = input.slice(i + 1, i + 3);
          if (isHexPair(hex)) {
            output += "%" + hex.toUpperCase();
            i += 2;
            continue;
          }
        }
        output += escape(input[i]);
      }
      return output;
    }
    function recomposeAuthority(component) {
      const uriTokens = [];
      if (component.userinfo !== void 0) {
        uriTokens.push(encodeUserinfo(component.userinfo));
        uriTokens.push("@");
      }
      if (component.host !== void 0) {
        let host = component.host;
        if (!isIPv4(host)) {
          let ipV6res = normalizeIPv6(host);
          if (ipV6res.isIPV6 !== true && ipV6res.isIPVFuture !== true) {
            host = normalizePercentEncoding(host, true);
            ipV6res = normalizeIPv6(host);
          }
          if (ipV6res.isIPV6 === true || ipV6res.isIPVFuture === true) {
            host = `[${ipV6res.escapedHost}]`;
          } else {
            host = reescapeHostDelimiters(host, false);
          }
        }
        uriTokens.push(host);
      }
      if (typeof component.port === "number" || typeof component.port === "string") {
        const port = String(component.port);
        if (!isPort(port)) {
          throw new TypeError("URI port is malformed.");
        }
        uriTokens.push(":");
        uriTokens.push(port);
      }
      return uriTokens.length ? uriTokens.join("") : void 0;
    }
    module.exports = {
      nonSimpleDomain,
      recomposeAuthority,
      reescapeHostDelimiters,
      normalizePercentEncoding,
      normalizePathEncoding,
      serializePathEncoding,
      normalizeQueryFragmentEncoding,
      encodeUserinfo,
      encodeQuery,
      encodeFragment,
      escapePreservingEscapes,
      removeDotSegments,
      removeDotSegmentsRelative,
      isIPv4,
      isUUID,
      normalizeIPv6,
      stringArrayToHexStripped
    };
  }
});

// node_modules/json-schema-resolver/node_modules/fast-uri/lib/schemes.js
var require_schemes = __commonJS({
  "node_modules/json-schema-resolver/node_modules/fast-uri/lib/schemes.js"(exports, module) {
    "use strict";
    var { isUUID } = require_utils();
    var URN_REG = /^([\da-z][\d\-a-z]{0,31}):((?:[\w!$'()*+,\-./:;=@]|%[\da-f]{2})+)$/iu;
    var supportedSchemeNames = (
      /** @type {const} */
      [
        "http",
        "https",
        "ws",
        "wss",
        "urn",
        "urn:uuid"
      ]
    );
    function isValidSchemeName(name) {
      return supportedSchemeNames.indexOf(
        /** @type {*} */
        name
      ) !== -1;
    }
    function wsIsSecure(wsComponent) {
      if (wsComponent.secure === true) {
        return true;
      } else if (wsComponent.secure === false) {
        return false;
      } else if (wsComponent.scheme) {
        return wsComponent.scheme.length === 3 && (wsComponent.scheme[0] === "w" || wsComponent.scheme[0] === "W") && (wsComponent.scheme[1] === "s" || wsComponent.scheme[1] === "S") && (wsComponent.scheme[2] === "s" || wsComponent.scheme[2] === "S");
      } else {
        return false;
      }
    }
    function httpParse(component) {
      if (!component.host) {
        component.error = component.error || "HTTP URIs must have a host.";
      }
      return component;
    }
    function httpSerialize(component) {
      const secure = String(component.scheme).toLowerCase() === "https";
      if (component.port === (secure ? 443 : 80) || component.port === "") {
        component.port = void 0;
      }
      if (!component.path) {
        component.path = "/";
      }
      return component;
    }
    function wsParse(wsComponent) {
      wsComponent.secure = wsIsSecure(wsComponent);
      wsComponent.resourceName = (wsComponent.path || "/") + (wsComponent.query ? "?" + wsComponent.query : "");
      wsComponent.path = void 0;
      wsComponent.query = void 0;
      return wsComponent;
    }
    function wsSerialize(wsComponent) {
      if (wsComponent.port === (wsIsSecure(wsComponent) ? 443 : 80) || wsComponent.port === "") {
        wsComponent.port = void 0;
      }
      if (typeof wsComponent.secure === "boolean") {
        wsComponent.scheme = wsComponent.secure ? "wss" : "ws";
        wsComponent.secure = void 0;
      }
      if (wsComponent.resourceName) {
        const queryIndex = wsComponent.resourceName.indexOf("?");
        const path = queryIndex === -1 ? wsComponent.resourceName : wsComponent.resourceName.slice(0, queryIndex);
        wsComponent.path = path && path !== "/" ? path : void 0;
        wsComponent.query = queryIndex === -1 ? void 0 : wsComponent.resourceName.slice(queryIndex + 1);
        wsComponent.resourceName = void 0;
      }
      wsComponent.fragment = void 0;
      return wsComponent;
    }
    function urnParse(urnComponent, options) {
      if (!urnComponent.path) {
        urnComponent.error = "URN can not be parsed";
        return urnComponent;
      }
      const matches = urnComponent.path.match(URN_REG);
      if (matches && matches[0] === urnComponent.path) {
        const scheme = options.scheme || urnComponent.scheme || "urn";
        urnComponent.nid = matches[1].toLowerCase();
        urnComponent.nss = matches[2];
        const urnScheme = `${scheme}:${options.nid || urnComponent.nid}`;
        const schemeHandler = getSchemeHandler(urnScheme);
        urnComponent.path = void 0;
        if (schemeHandler) {
          urnComponent = schemeHandler.parse(urnComponent, options);
        }
      } else {
        urnComponent.error = urnComponent.error || "URN can not be parsed.";
      }
      return urnComponent;
    }
    function urnSerialize(urnComponent, options) {
      if (urnComponent.nid === void 0) {
        throw new Error("URN without nid cannot be serialized");
      }
      const scheme = options.scheme || urnComponent.scheme || "urn";
      const nid = urnComponent.nid.toLowerCase();
      const urnScheme = `${scheme}:${options.nid || nid}`;
      const schemeHandler = getSchemeHandler(urnScheme);
      if (schemeHandler) {
        urnComponent = schemeHandler.serialize(urnComponent, options);
      }
      const uriComponent = urnComponent;
      const nss = urnComponent.nss;
      uriComponent.path = `${nid || options.nid}:${nss}`;
      options.skipEscape = true;
      return uriComponent;
    }
    function urnuuidParse(urnComponent, options) {
      const uuidComponent = urnComponent;
      uuidComponent.uuid = uuidComponent.nss;
      uuidComponent.nss = void 0;
      if (!options.tolerant && (!uuidComponent.uuid || !isUUID(uuidComponent.uuid))) {
        uuidComponent.error = uuidComponent.error || "UUID is not valid.";
      }
      return uuidComponent;
    }
    function urnuuidSerialize(uuidComponent) {
      const urnComponent = uuidComponent;
      urnComponent.nss = (uuidComponent.uuid || "").toLowerCase();
      return urnComponent;
    }
    var http = (
      /** @type {SchemeHandler} */
      {
        scheme: "http",
        domainHost: true,
        parse: httpParse,
        serialize: httpSerialize
      }
    );
    var https = (
      /** @type {SchemeHandler} */
      {
        scheme: "https",
        domainHost: http.domainHost,
        parse: httpParse,
        serialize: httpSerialize
      }
    );
    var ws = (
      /** @type {SchemeHandler} */
      {
        scheme: "ws",
        domainHost: true,
        parse: wsParse,
        serialize: wsSerialize
      }
    );
    var wss = (
      /** @type {SchemeHandler} */
      {
        scheme: "wss",
        domainHost: ws.domainHost,
        parse: ws.parse,
        serialize: ws.serialize
      }
    );
    var urn = (
      /** @type {SchemeHandler} */
      {
        scheme: "urn",
        parse: urnParse,
        serialize: urnSerialize,
        skipNormalize: true
      }
    );
    var urnuuid = (
      /** @type {SchemeHandler} */
      {
        scheme: "urn:uuid",
        parse: urnuuidParse,
        serialize: urnuuidSerialize,
        skipNormalize: true
      }
    );
    var SCHEMES = (
      /** @type {Record<SchemeName, SchemeHandler>} */
      {
        http,
        https,
        ws,
        wss,
        urn,
        "urn:uuid": urnuuid
      }
    );
    Object.setPrototypeOf(SCHEMES, null);
    function getSchemeHandler(scheme) {
      return scheme && (SCHEMES[
        /** @type {SchemeName} */
        scheme
      ] || SCHEMES[
        /** @type {SchemeName} */
        scheme.toLowerCase()
      ]) || void 0;
    }
    module.exports = {
      wsIsSecure,
      SCHEMES,
      isValidSchemeName,
      getSchemeHandler
    };
  }
});

// node_modules/json-schema-resolver/node_modules/fast-uri/index.js
var require_fast_uri = __commonJS({
  "node_modules/json-schema-resolver/node_modules/fast-uri/index.js"(exports, module) {
    "use strict";
    var { normalizeIPv6, removeDotSegments, removeDotSegmentsRelative, recomposeAuthority, normalizePercentEncoding, normalizePathEncoding, serializePathEncoding, normalizeQueryFragmentEncoding, encodeQuery, encodeFragment, reescapeHostDelimiters, isIPv4, nonSimpleDomain } = require_utils();
    var { SCHEMES, getSchemeHandler } = require_schemes();
    var VALID_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/u;
    var MALFORMED_SCHEME_ERROR = "URI scheme is malformed.";
    var MALFORMED_HOST_ERROR = "URI host is malformed.";
    var FORBIDDEN_DOMAIN_HOST_CHARACTER = /[\0-\x20"#/:<>?@[\\\]^`{|}\x7F]/u;
    function validateScheme(scheme) {
      const stringScheme = String(scheme);
      if (!VALID_SCHEME.test(stringScheme)) {
        throw new TypeError(MALFORMED_SCHEME_ERROR);
      }
      return stringScheme;
    }
    function normalize(uri, options) {
      if (typeof uri === "string") {
        uri = /** @type {T} */
        normalizeString(uri, options);
      } else if (typeof uri === "object") {
        uri = /** @type {T} */
        parse(serialize(uri, options), options);
      }
      return uri;
    }
    function resolve(baseURI, relativeURI, options) {
      const schemelessOptions = options ? Object.assign({ scheme: "null" }, options) : { scheme: "null" };
      const {
        parsed: baseParsed,
        malformedAuthorityOrPort: baseMalformed,
        malformedPercentEncoding: baseMalformedPercentEncoding,
        malformedSchemeSpecific: baseMalformedSchemeSpecific,
        malformedHost: baseMalformedHost,
        malformedScheme: baseMalformedScheme
      } = parseWithStatus(baseURI, schemelessOptions);
      const {
        parsed: relativeParsed,
        malformedAuthorityOrPort: relativeMalformed,
        malformedPercentEncoding: relativeMalformedPercentEncoding,
        malformedSchemeSpecific: relativeMalformedSchemeSpecific,
        malformedHost: relativeMalformedHost,
        malformedScheme: relativeMalformedScheme
      } = parseWithStatus(relativeURI, schemelessOptions);
      if (baseMalformed || relativeMalformed || baseMalformedPercentEncoding || relativeMalformedPercentEncoding || baseMalformedSchemeSpecific || relativeMalformedSchemeSpecific || baseMalformedHost || relativeMalformedHost || baseMalformedScheme || relativeMalformedScheme) {
        throw new Error(baseParsed.error || relativeParsed.error || "URI is malformed.");
      }
      const resolved = resolveComponent(baseParsed, relativeParsed, schemelessOptions, true);
      const resolvedSchemeHandler = getSchemeHandler(options && options.scheme || resolved.scheme);
      const resolvedHost = resolved.host;
      const resolvedHostIsIP = resolvedHost !== void 0 && resolvedHost !== "" && (isIPv4(resolvedHost) || normalizeIPv6(resolvedHost).isIPV6);
      if (hasForbiddenDomainHost(resolved, options || {}, resolvedSchemeHandler, resolvedHostIsIP)) {
        throw new Error(MALFORMED_HOST_ERROR);
      }
      canonicalizeHost(resolved, options || {}, resolvedSchemeHandler, resolvedHostIsIP);
      const encodedASCIIHost = resolvedHost && resolvedHost.indexOf("%") !== -1 && !new RegExp("\\P{ASCII}", "u").test(resolvedHost);
      if (resolved.error && !encodedASCIIHost) {
        throw new Error(resolved.error);
      }
      schemelessOptions.skipEscape = true;
      return serialize(resolved, schemelessOptions);
    }
    function resolveComponent(base, relative, options, skipNormalization) {
      const target = {};
      if (!skipNormalization) {
        base = parse(serialize(base, options), options);
        relative = parse(serialize(relative, options), options);
      }
      options = options || {};
      if (!options.tolerant && relative.scheme) {
        target.scheme = relative.scheme;
        target.userinfo = relative.userinfo;
        target.host = relative.host;
        target.port = relative.port;
        target.path = removeDotSegments(relative.path || "");
        target.query = relative.query;
      } else {
        if (relative.userinfo !== void 0 || relative.host !== void 0 || relative.port !== void 0) {
          target.userinfo = relative.userinfo;
          target.host = relative.host;
          target.port = relative.port;
          target.path = removeDotSegments(relative.path || "");
          target.query = relative.query;
        } else {
          if (!relative.path) {
            target.path = base.path;
            if (relative.query !== void 0) {
              target.query = relative.query;
            } else {
              target.query = base.query;
            }
          } else {
            if (relative.path[0] === "/") {
              target.path = removeDotSegments(relative.path);
            } else {
              const baseHasAuthority = base.userinfo !== void 0 || base.host !== void 0 || base.port !== void 0;
              if (baseHasAuthority && !base.path) {
                target.path = "/" + relative.path;
              } else if (!base.path) {
                target.path = relative.path;
              } else {
                target.path = base.path.slice(0, base.path.lastIndexOf("/") + 1) + relative.path;
              }
              target.path = base.scheme === void 0 && !baseHasAuthority && target.path[0] !== "/" ? removeDotSegmentsRelative(target.path) : removeDotSegments(target.path);
            }
            target.query = relative.query;
          }
          target.userinfo = base.userinfo;
          target.host = base.host;
          target.port = base.port;
        }
        target.scheme = base.scheme;
      }
      target.fragment = relative.fragment;
      return target;
    }
    function equal(uriA, uriB, options) {
      const normalizedA = normalizeComparableURI(uriA, options);
      const normalizedB = normalizeComparableURI(uriB, options);
      return normalizedA !== void 0 && normalizedB !== void 0 && normalizedA === normalizedB;
    }
    function serialize(cmpts, opts) {
      const component = {
        host: cmpts.host,
        scheme: cmpts.scheme,
        userinfo: cmpts.userinfo,
        port: cmpts.port,
        path: cmpts.path,
        query: cmpts.query,
        nid: cmpts.nid,
        nss: cmpts.nss,
        uuid: cmpts.uuid,
        fragment: cmpts.fragment,
        reference: cmpts.reference,
        resourceName: cmpts.resourceName,
        secure: cmpts.secure,
        error: ""
      };
      const options = Object.assign({}, opts);
      const uriTokens = [];
      if (component.scheme) {
        component.scheme = validateScheme(component.scheme);
      }
      const schemeHandler = getSchemeHandler(options.scheme || component.scheme);
      if (schemeHandler && schemeHandler.serialize) schemeHandler.serialize(component, options);
      const hasAuthority = component.userinfo !== void 0 || component.host !== void 0 || component.port !== void 0;
      const schemelessReference = (component.scheme === void 0 || options.reference === "suffix") && !hasAuthority;
      const pathNoScheme = !options.skipEscape && schemelessReference;
      if (component.path !== void 0) {
        if (!options.skipEscape) {
          component.path = serializePathEncoding(component.path, pathNoScheme);
        } else {
          component.path = normalizePercentEncoding(component.path);
        }
      }
      if (options.reference !== "suffix" && component.scheme) {
        component.scheme = validateScheme(component.scheme);
        uriTokens.push(component.scheme, ":");
      }
      const authority = recomposeAuthority(component);
      if (authority !== void 0) {
        if (options.reference !== "suffix") {
          uriTokens.push("//");
        }
        uriTokens.push(authority);
        if (component.path && component.path[0] !== "/") {
          uriTokens.push("/");
        }
      }
      if (component.path !== void 0) {
        let s = component.path;
        if (!options.absolutePath && (!schemeHandler || !schemeHandler.absolutePath)) {
          s = schemelessReference && s[0] !== "/" ? removeDotSegmentsRelative(s) : removeDotSegments(s);
        }
        if (schemelessReference) {
          s = serializePathEncoding(s, true);
        }
        if (authority === void 0 && s[0] === "/" && s[1] === "/") {
          s = "/%2F" + s.slice(2);
        }
        uriTokens.push(s);
      }
      if (component.query !== void 0) {
        uriTokens.push("?", encodeQuery(component.query));
      }
      if (component.fragment !== void 0) {
        uriTokens.push("#", encodeFragment(component.fragment));
      }
      return uriTokens.join("");
    }
    var URI_PARSE = /^(?:([^#/:?]+):)?(?:\/\/((?:([^#/?@]*)@)?(\[[^#/?\]]+\]|[^#/:?]*)(?::(\d*))?))?([^#?]*)(?:\?([^#]*))?(?:#((?:.|[\n\r])*))?/u;
    var AUTHORITY_PREFIX = /^(?:[^#/:?]+:)?\/\/([^/?#]*)/;
    var AUTHORITY_INTRODUCER_REGION = /^(?:[^#/:?]+:)?([/\\\t\n\r]*)/;
    function getParseError(parsed, matches) {
      if (matches[2] !== void 0 && parsed.path && parsed.path[0] !== "/") {
        return 'URI path must start with "/" when authority is present.';
      }
      if (typeof parsed.port === "number" && (parsed.port < 0 || parsed.port > 65535)) {
        return "URI port is malformed.";
      }
      return void 0;
    }
    function hasMalformedPercentEncoding(component) {
      if (component === void 0) return false;
      let percent = component.indexOf("%");
      while (percent !== -1) {
        if (percent + 2 >= component.length || !/^[\da-f]{2}$/iu.test(component.slice(percent + 1, percent + 3))) {
          return true;
        }
        percent = component.indexOf("%", percent + 3);
      }
      return false;
    }
    function isIPLiteral(host) {
      return host[0] === "[" && host[host.length - 1] === "]";
    }
    function hasMalformedComponentPercentEncoding(matches) {
      const host = matches[4];
      return hasMalformedPercentEncoding(matches[3]) || host !== void 0 && !isIPLiteral(host) && hasMalformedPercentEncoding(host) || hasMalformedPercentEncoding(matches[6]) || hasMalformedPercentEncoding(matches[7]) || hasMalformedPercentEncoding(matches[8]);
    }
    function canonicalizeHost(parsed, options, schemeHandler, isIP) {
      if (hasForbiddenDomainHost(parsed, options, schemeHandler, isIP)) {
        parsed.error = parsed.error || MALFORMED_HOST_ERROR;
        return true;
      }
      if (!options.unicodeSupport && (!schemeHandler || !schemeHandler.unicodeSupport) && parsed.host && !isIPLiteral(parsed.host) && (options.domainHost || schemeHandler && schemeHandler.domainHost) && isIP === false && nonSimpleDomain(parsed.host)) {
        let url;
        try {
          url = new URL("http://" + parsed.host);
        } catch (e) {
          parsed.error = parsed.error || "Host's domain name can not be converted to ASCII: " + e;
          return true;
        }
        if (!isHostOnlyURL(url)) {
          parsed.error = parsed.error || MALFORMED_HOST_ERROR;
          return true;
        }
        parsed.host = url.hostname;
      }
      return false;
    }
    function hasForbiddenDomainHost(parsed, options, schemeHandler, isIP) {
      return Boolean(
        parsed.host && isIP === false && !isIPLiteral(parsed.host) && (options.domainHost || schemeHandler && schemeHandler.domainHost) && FORBIDDEN_DOMAIN_HOST_CHARACTER.test(parsed.host)
      );
    }
    function isHostOnlyURL(url) {
      return url.username === "" && url.password === "" && url.port === "" && url.pathname === "/" && url.search === "" && url.hash === "" && url.hostname !== "";
    }
    function parseWithStatus(uri, opts) {
      const options = Object.assign({}, opts);
      const parsed = {
        scheme: void 0,
        userinfo: void 0,
        host: "",
        port: void 0,
        path: "",
        query: void 0,
        fragment: void 0
      };
      let malformedAuthorityOrPort = false;
      let malformedPercentEncoding = false;
      let malformedSchemeSpecific = false;
      let malformedHost = false;
      let malformedIPLiteral = false;
      let malformedScheme = false;
      let isIP = false;
      if (options.reference === "suffix") {
        if (options.scheme) {
          uri = options.scheme + ":" + uri;
        } else {
          uri = "//" + uri;
        }
      }
      const authorityMatch = uri.match(AUTHORITY_PREFIX);
      if (authorityMatch !== null && authorityMatch[1].indexOf("\\") !== -1) {
        parsed.error = "URI authority must not contain a literal backslash.";
        malformedAuthorityOrPort = true;
      }
      const introducerMatch = uri.match(AUTHORITY_INTRODUCER_REGION);
      if (introducerMatch !== null) {
        const region = introducerMatch[1];
        const normalizedRegion = region.replace(/[\t\n\r]/g, "");
        if (normalizedRegion.length >= 2) {
          if (normalizedRegion.slice(0, 2) !== "//") {
            parsed.error = parsed.error || "URI authority must not contain a literal backslash.";
            malformedAuthorityOrPort = true;
          } else if (region.length !== normalizedRegion.length) {
            parsed.error = parsed.error || "URI authority introducer must not contain whitespace.";
            malformedAuthorityOrPort = true;
          }
        }
      }
      const matches = uri.match(URI_PARSE);
      if (matches) {
        parsed.scheme = matches[1];
        parsed.userinfo = matches[3];
        parsed.host = matches[4];
        parsed.port = parseInt(matches[5], 10);
        parsed.path = matches[6] || "";
        parsed.query = matches[7];
        parsed.fragment = matches[8];
        if (parsed.scheme !== void 0) {
          if (VALID_SCHEME.test(parsed.scheme)) {
            parsed.scheme = parsed.scheme.toLowerCase();
          } else {
            parsed.error = parsed.error || MALFORMED_SCHEME_ERROR;
            malformedScheme = true;
          }
        }
        malformedPercentEncoding = hasMalformedComponentPercentEncoding(matches);
        if (malformedPercentEncoding) {
          parsed.error = parsed.error || "URI contains malformed percent-encoding.";
        }
        if (isNaN(parsed.port)) {
          parsed.port = matches[5];
        }
        const parseError = getParseError(parsed, matches);
        if (parseError !== void 0) {
          parsed.error = parsed.error || parseError;
          malformedAuthorityOrPort = true;
        }
        if (parsed.host) {
          const ipv4result = isIPv4(parsed.host);
          if (ipv4result === false) {
            const bracketedIPLiteral = isIPLiteral(parsed.host);
            const hasIPLiteralBracket = parsed.host.indexOf("[") !== -1 || parsed.host.indexOf("]") !== -1;
            const ipv6result = normalizeIPv6(parsed.host);
            isIP = ipv6result.isIPV6 || ipv6result.isIPVFuture === true;
            malformedIPLiteral = hasIPLiteralBracket && (!bracketedIPLiteral || ipv6result.error === true);
            parsed.host = isIP ? ipv6result.host : ipv6result.host.toLowerCase();
            if (malformedIPLiteral) {
              parsed.error = parsed.error || MALFORMED_HOST_ERROR;
              malformedAuthorityOrPort = true;
            }
          } else {
            isIP = true;
          }
        }
        if (parsed.scheme === void 0 && parsed.userinfo === void 0 && parsed.host === void 0 && parsed.port === void 0 && parsed.query === void 0 && !parsed.path) {
          parsed.reference = "same-document";
        } else if (parsed.scheme === void 0) {
          parsed.reference = "relative";
        } else if (parsed.fragment === void 0) {
          parsed.reference = "absolute";
        } else {
          parsed.reference = "uri";
        }
        if (options.reference && options.reference !== "suffix" && options.reference !== parsed.reference) {
          parsed.error = parsed.error || "URI is not a " + options.reference + " reference.";
        }
        const schemeHandler = getSchemeHandler(options.scheme || parsed.scheme);
        if (!malformedIPLiteral) {
          malformedHost = canonicalizeHost(parsed, options, schemeHandler, isIP);
        }
        if (uri.indexOf("%") !== -1 && parsed.host !== void 0 && !malformedIPLiteral) {
          let host = isIP ? parsed.host : normalizePercentEncoding(parsed.host, true);
          if (!isIP) {
            host = normalizePercentEncoding(host.toLowerCase());
          }
          parsed.host = isIP || options.scheme !== "null" ? reescapeHostDelimiters(host, isIP) : host;
        }
        if (!schemeHandler || schemeHandler && !schemeHandler.skipNormalize) {
          if (parsed.path) {
            parsed.path = normalizePathEncoding(parsed.path);
          }
          if (parsed.query) {
            parsed.query = normalizeQueryFragmentEncoding(parsed.query);
          }
          if (parsed.fragment) {
            parsed.fragment = normalizeQueryFragmentEncoding(parsed.fragment);
          }
        }
        if (schemeHandler && schemeHandler.parse) {
          schemeHandler.parse(parsed, options);
          if (schemeHandler === SCHEMES.urn && parsed.nid === void 0) {
            malformedSchemeSpecific = true;
          }
        }
      } else {
        parsed.error = parsed.error || "URI can not be parsed.";
      }
      return { parsed, malformedAuthorityOrPort, malformedPercentEncoding, malformedSchemeSpecific, malformedHost, malformedScheme };
    }
    function parse(uri, opts) {
      return parseWithStatus(uri, opts).parsed;
    }
    function normalizeString(uri, opts) {
      return normalizeStringWithStatus(uri, opts).normalized;
    }
    function normalizeStringWithStatus(uri, opts) {
      const { parsed, malformedAuthorityOrPort, malformedPercentEncoding, malformedSchemeSpecific, malformedHost, malformedScheme } = parseWithStatus(uri, opts);
      return {
        normalized: malformedAuthorityOrPort || malformedPercentEncoding || malformedSchemeSpecific || malformedHost || malformedScheme ? uri : serialize(parsed, opts),
        malformedAuthorityOrPort,
        malformedPercentEncoding,
        malformedSchemeSpecific,
        malformedHost,
        malformedScheme
      };
    }
    function normalizeComparableURI(uri, opts) {
      if (typeof uri !== "string" && typeof uri !== "object") {
        return void 0;
      }
      let value;
      try {
        value = typeof uri === "string" ? uri : serialize(uri, opts);
      } catch {
        return void 0;
      }
      const { normalized, malformedAuthorityOrPort, malformedPercentEncoding, malformedSchemeSpecific, malformedHost, malformedScheme } = normalizeStringWithStatus(value, opts);
      return malformedAuthorityOrPort || malformedPercentEncoding || malformedSchemeSpecific || malformedHost || malformedScheme ? void 0 : normalized;
    }
    var fastUri = {
      SCHEMES,
      normalize,
      resolve,
      resolveComponent,
      equal,
      serialize,
      parse
    };
    module.exports = fastUri;
    module.exports.default = fastUri;
    module.exports.fastUri = fastUri;
  }
});

// node_modules/ms/index.js
var require_ms = __commonJS({
  "node_modules/ms/index.js"(exports, module) {
    var s = 1e3;
    var m = s * 60;
    var h = m * 60;
    var d = h * 24;
    var w = d * 7;
    var y = d * 365.25;
    module.exports = function(val, options) {
      options = options || {};
      var type = typeof val;
      if (type === "string" && val.length > 0) {
        return parse(val);
      } else if (type === "number" && isFinite(val)) {
        return options.long ? fmtLong(val) : fmtShort(val);
      }
      throw new Error(
        "val is not a non-empty string or a valid number. val=" + JSON.stringify(val)
      );
    };
    function parse(str) {
      str = String(str);
      if (str.length > 100) {
        return;
      }
      var match = /^(-?(?:\d+)?\.?\d+) *(milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)?$/i.exec(
        str
      );
      if (!match) {
        return;
      }
      var n = parseFloat(match[1]);
      var type = (match[2] || "ms").toLowerCase();
      switch (type) {
        case "years":
        case "year":
        case "yrs":
        case "yr":
        case "y":
          return n * y;
        case "weeks":
        case "week":
        case "w":
          return n * w;
        case "days":
        case "day":
        case "d":
          return n * d;
        case "hours":
        case "hour":
        case "hrs":
        case "hr":
        case "h":
          return n * h;
        case "minutes":
        case "minute":
        case "mins":
        case "min":
        case "m":
          return n * m;
        case "seconds":
        case "second":
        case "secs":
        case "sec":
        case "s":
          return n * s;
        case "milliseconds":
        case "millisecond":
        case "msecs":
        case "msec":
        case "ms":
          return n;
        default:
          return void 0;
      }
    }
    function fmtShort(ms) {
      var msAbs = Math.abs(ms);
      if (msAbs >= d) {
        return Math.round(ms / d) + "d";
      }
      if (msAbs >= h) {
        return Math.round(ms / h) + "h";
      }
      if (msAbs >= m) {
        return Math.round(ms / m) + "m";
      }
      if (msAbs >= s) {
        return Math.round(ms / s) + "s";
      }
      return ms + "ms";
    }
    function fmtLong(ms) {
      var msAbs = Math.abs(ms);
      if (msAbs >= d) {
        return plural(ms, msAbs, d, "day");
      }
      if (msAbs >= h) {
        return plural(ms, msAbs, h, "hour");
      }
      if (msAbs >= m) {
        return plural(ms, msAbs, m, "minute");
      }
      if (msAbs >= s) {
        return plural(ms, msAbs, s, "second");
      }
      return ms + " ms";
    }
    function plural(ms, msAbs, n, name) {
      var isPlural = msAbs >= n * 1.5;
      return Math.round(ms / n) + " " + name + (isPlural ? "s" : "");
    }
  }
});

// node_modules/debug/src/common.js
var require_common = __commonJS({
  "node_modules/debug/src/common.js"(exports, module) {
    function setup(env) {
      createDebug.debug = createDebug;
      createDebug.default = createDebug;
      createDebug.coerce = coerce;
      createDebug.disable = disable;
      createDebug.enable = enable;
      createDebug.enabled = enabled;
      createDebug.humanize = require_ms();
      createDebug.destroy = destroy;
      Object.keys(env).forEach((key) => {
        createDebug[key] = env[key];
      });
      createDebug.names = [];
      createDebug.skips = [];
      createDebug.formatters = {};
      function selectColor(namespace) {
        let hash = 0;
        for (let i = 0; i < namespace.length; i++) {
          hash = (hash << 5) - hash + namespace.charCodeAt(i);
          hash |= 0;
        }
        return createDebug.colors[Math.abs(hash) % createDebug.colors.length];
      }
      createDebug.selectColor = selectColor;
      function createDebug(namespace) {
        let prevTime;
        let enableOverride = null;
        let namespacesCache;
        let enabledCache;
        function debug(...args) {
          if (!debug.enabled) {
            return;
          }
          const self = debug;
          const curr = Number(/* @__PURE__ */ new Date());
          const ms = curr - (prevTime || curr);
          self.diff = ms;
          self.prev = prevTime;
          self.curr = curr;
          prevTime = curr;
          args[0] = createDebug.coerce(args[0]);
          if (typeof args[0] !== "string") {
            args.unshift("%O");
          }
          let index = 0;
          args[0] = args[0].replace(/%([a-zA-Z%])/g, (match, format) => {
            if (match === "%%") {
              return "%";
            }
            index++;
            const formatter = createDebug.formatters[format];
            if (typeof formatter === "function") {
              const val = args[index];
              match = formatter.call(self, val);
              args.splice(index, 1);
              index--;
            }
            return match;
          });
          createDebug.formatArgs.call(self, args);
          const logFn = self.log || createDebug.log;
          logFn.apply(self, args);
        }
        debug.namespace = namespace;
        debug.useColors = createDebug.useColors();
        debug.color = createDebug.selectColor(namespace);
        debug.extend = extend;
        debug.destroy = createDebug.destroy;
        Object.defineProperty(debug, "enabled", {
          enumerable: true,
          configurable: false,
          get: () => {
            if (enableOverride !== null) {
              return enableOverride;
            }
            if (namespacesCache !== createDebug.namespaces) {
              namespacesCache = createDebug.namespaces;
              enabledCache = createDebug.enabled(namespace);
            }
            return enabledCache;
          },
          set: (v) => {
            enableOverride = v;
          }
        });
        if (typeof createDebug.init === "function") {
          createDebug.init(debug);
        }
        return debug;
      }
      function extend(namespace, delimiter) {
        const newDebug = createDebug(this.namespace + (typeof delimiter === "undefined" ? ":" : delimiter) + namespace);
        newDebug.log = this.log;
        return newDebug;
      }
      function enable(namespaces) {
        createDebug.save(namespaces);
        createDebug.namespaces = namespaces;
        createDebug.names = [];
        createDebug.skips = [];
        const split = (typeof namespaces === "string" ? namespaces : "").trim().replace(/\s+/g, ",").split(",").filter(Boolean);
        for (const ns of split) {
          if (ns[0] === "-") {
            createDebug.skips.push(ns.slice(1));
          } else {
            createDebug.names.push(ns);
          }
        }
      }
      function matchesTemplate(search, template) {
        let searchIndex = 0;
        let templateIndex = 0;
        let starIndex = -1;
        let matchIndex = 0;
        while (searchIndex < search.length) {
          if (templateIndex < template.length && (template[templateIndex] === search[searchIndex] || template[templateIndex] === "*")) {
            if (template[templateIndex] === "*") {
              starIndex = templateIndex;
              matchIndex = searchIndex;
              templateIndex++;
            } else {
              searchIndex++;
              templateIndex++;
            }
          } else if (starIndex !== -1) {
            templateIndex = starIndex + 1;
            matchIndex++;
            searchIndex = matchIndex;
          } else {
            return false;
          }
        }
        while (templateIndex < template.length && template[templateIndex] === "*") {
          templateIndex++;
        }
        return templateIndex === template.length;
      }
      function disable() {
        const namespaces = [
          ...createDebug.names,
          ...createDebug.skips.map((namespace) => "-" + namespace)
        ].join(",");
        createDebug.enable("");
        return namespaces;
      }
      function enabled(name) {
        for (const skip of createDebug.skips) {
          if (matchesTemplate(name, skip)) {
            return false;
          }
        }
        for (const ns of createDebug.names) {
          if (matchesTemplate(name, ns)) {
            return true;
          }
        }
        return false;
      }
      function coerce(val) {
        if (val instanceof Error) {
          return val.stack || val.message;
        }
        return val;
      }
      function destroy() {
        console.warn("Instance method `debug.destroy()` is deprecated and no longer does anything. It will be removed in the next major version of `debug`.");
      }
      createDebug.enable(createDebug.load());
      return createDebug;
    }
    module.exports = setup;
  }
});

// node_modules/debug/src/browser.js
var require_browser = __commonJS({
  "node_modules/debug/src/browser.js"(exports, module) {
    exports.formatArgs = formatArgs;
    exports.save = save;
    exports.load = load;
    exports.useColors = useColors;
    exports.storage = localstorage();
    exports.destroy = /* @__PURE__ */ (() => {
      let warned = false;
      return () => {
        if (!warned) {
          warned = true;
          console.warn("Instance method `debug.destroy()` is deprecated and no longer does anything. It will be removed in the next major version of `debug`.");
        }
      };
    })();
    exports.colors = [
      "#0000CC",
      "#0000FF",
      "#0033CC",
      "#0033FF",
      "#0066CC",
      "#0066FF",
      "#0099CC",
      "#0099FF",
      "#00CC00",
      "#00CC33",
      "#00CC66",
      "#00CC99",
      "#00CCCC",
      "#00CCFF",
      "#3300CC",
      "#3300FF",
      "#3333CC",
      "#3333FF",
      "#3366CC",
      "#3366FF",
      "#3399CC",
      "#3399FF",
      "#33CC00",
      "#33CC33",
      "#33CC66",
      "#33CC99",
      "#33CCCC",
      "#33CCFF",
      "#6600CC",
      "#6600FF",
      "#6633CC",
      "#6633FF",
      "#66CC00",
      "#66CC33",
      "#9900CC",
      "#9900FF",
      "#9933CC",
      "#9933FF",
      "#99CC00",
      "#99CC33",
      "#CC0000",
      "#CC0033",
      "#CC0066",
      "#CC0099",
      "#CC00CC",
      "#CC00FF",
      "#CC3300",
      "#CC3333",
      "#CC3366",
      "#CC3399",
      "#CC33CC",
      "#CC33FF",
      "#CC6600",
      "#CC6633",
      "#CC9900",
      "#CC9933",
      "#CCCC00",
      "#CCCC33",
      "#FF0000",
      "#FF0033",
      "#FF0066",
      "#FF0099",
      "#FF00CC",
      "#FF00FF",
      "#FF3300",
      "#FF3333",
      "#FF3366",
      "#FF3399",
      "#FF33CC",
      "#FF33FF",
      "#FF6600",
      "#FF6633",
      "#FF9900",
      "#FF9933",
      "#FFCC00",
      "#FFCC33"
    ];
    function useColors() {
      if (typeof window !== "undefined" && window.process && (window.process.type === "renderer" || window.process.__nwjs)) {
        return true;
      }
      if (typeof navigator !== "undefined" && navigator.userAgent && navigator.userAgent.toLowerCase().match(/(edge|trident)\/(\d+)/)) {
        return false;
      }
      let m;
      return typeof document !== "undefined" && document.documentElement && document.documentElement.style && document.documentElement.style.WebkitAppearance || // Is firebug? http://stackoverflow.com/a/398120/376773
      typeof window !== "undefined" && window.console && (window.console.firebug || window.console.exception && window.console.table) || // Is firefox >= v31?
      // https://developer.mozilla.org/en-US/docs/Tools/Web_Console#Styling_messages
      typeof navigator !== "undefined" && navigator.userAgent && (m = navigator.userAgent.toLowerCase().match(/firefox\/(\d+)/)) && parseInt(m[1], 10) >= 31 || // Double check webkit in userAgent just in case we are in a worker
      typeof navigator !== "undefined" && navigator.userAgent && navigator.userAgent.toLowerCase().match(/applewebkit\/(\d+)/);
    }
    function formatArgs(args) {
      args[0] = (this.useColors ? "%c" : "") + this.namespace + (this.useColors ? " %c" : " ") + args[0] + (this.useColors ? "%c " : " ") + "+" + module.exports.humanize(this.diff);
      if (!this.useColors) {
        return;
      }
      const c = "color: " + this.color;
      args.splice(1, 0, c, "color: inherit");
      let index = 0;
      let lastC = 0;
      args[0].replace(/%[a-zA-Z%]/g, (match) => {
        if (match === "%%") {
          return;
        }
        index++;
        if (match === "%c") {
          lastC = index;
        }
      });
      args.splice(lastC, 0, c);
    }
    exports.log = console.debug || console.log || (() => {
    });
    function save(namespaces) {
      try {
        if (namespaces) {
          exports.storage.setItem("debug", namespaces);
        } else {
          exports.storage.removeItem("debug");
        }
      } catch (error) {
      }
    }
    function load() {
      let r;
      try {
        r = exports.storage.getItem("debug") || exports.storage.getItem("DEBUG");
      } catch (error) {
      }
      if (!r && typeof process !== "undefined" && "env" in process) {
        r = process.env.DEBUG;
      }
      return r;
    }
    function localstorage() {
      try {
        return localStorage;
      } catch (error) {
      }
    }
    module.exports = require_common()(exports);
    var { formatters } = module.exports;
    formatters.j = function(v) {
      try {
        return JSON.stringify(v);
      } catch (error) {
        return "[UnexpectedJSONParseError]: " + error.message;
      }
    };
  }
});

// node_modules/has-flag/index.js
var require_has_flag = __commonJS({
  "node_modules/has-flag/index.js"(exports, module) {
    "use strict";
    module.exports = (flag, argv = process.argv) => {
      const prefix = flag.startsWith("-") ? "" : flag.length === 1 ? "-" : "--";
      const position = argv.indexOf(prefix + flag);
      const terminatorPosition = argv.indexOf("--");
      return position !== -1 && (terminatorPosition === -1 || position < terminatorPosition);
    };
  }
});

// node_modules/supports-color/index.js
var require_supports_color = __commonJS({
  "node_modules/supports-color/index.js"(exports, module) {
    "use strict";
    var os = __require("os");
    var tty = __require("tty");
    var hasFlag = require_has_flag();
    var { env } = process;
    var forceColor;
    if (hasFlag("no-color") || hasFlag("no-colors") || hasFlag("color=false") || hasFlag("color=never")) {
      forceColor = 0;
    } else if (hasFlag("color") || hasFlag("colors") || hasFlag("color=true") || hasFlag("color=always")) {
      forceColor = 1;
    }
    if ("FORCE_COLOR" in env) {
      if (env.FORCE_COLOR === "true") {
        forceColor = 1;
      } else if (env.FORCE_COLOR === "false") {
        forceColor = 0;
      } else {
        forceColor = env.FORCE_COLOR.length === 0 ? 1 : Math.min(parseInt(env.FORCE_COLOR, 10), 3);
      }
    }
    function translateLevel(level) {
      if (level === 0) {
        return false;
      }
      return {
        level,
        hasBasic: true,
        has256: level >= 2,
        has16m: level >= 3
      };
    }
    function supportsColor(haveStream, streamIsTTY) {
      if (forceColor === 0) {
        return 0;
      }
      if (hasFlag("color=16m") || hasFlag("color=full") || hasFlag("color=truecolor")) {
        return 3;
      }
      if (hasFlag("color=256")) {
        return 2;
      }
      if (haveStream && !streamIsTTY && forceColor === void 0) {
        return 0;
      }
      const min = forceColor || 0;
      if (env.TERM === "dumb") {
        return min;
      }
      if (process.platform === "win32") {
        const osRelease = os.release().split(".");
        if (Number(osRelease[0]) >= 10 && Number(osRelease[2]) >= 10586) {
          return Number(osRelease[2]) >= 14931 ? 3 : 2;
        }
        return 1;
      }
      if ("CI" in env) {
        if (["TRAVIS", "CIRCLECI", "APPVEYOR", "GITLAB_CI", "GITHUB_ACTIONS", "BUILDKITE"].some((sign) => sign in env) || env.CI_NAME === "codeship") {
          return 1;
        }
        return min;
      }
      if ("TEAMCITY_VERSION" in env) {
        return /^(9\.(0*[1-9]\d*)\.|\d{2,}\.)/.test(env.TEAMCITY_VERSION) ? 1 : 0;
      }
      if (env.COLORTERM === "truecolor") {
        return 3;
      }
      if ("TERM_PROGRAM" in env) {
        const version = parseInt((env.TERM_PROGRAM_VERSION || "").split(".")[0], 10);
        switch (env.TERM_PROGRAM) {
          case "iTerm.app":
            return version >= 3 ? 3 : 2;
          case "Apple_Terminal":
            return 2;
        }
      }
      if (/-256(color)?$/i.test(env.TERM)) {
        return 2;
      }
      if (/^screen|^xterm|^vt100|^vt220|^rxvt|color|ansi|cygwin|linux/i.test(env.TERM)) {
        return 1;
      }
      if ("COLORTERM" in env) {
        return 1;
      }
      return min;
    }
    function getSupportLevel(stream) {
      const level = supportsColor(stream, stream && stream.isTTY);
      return translateLevel(level);
    }
    module.exports = {
      supportsColor: getSupportLevel,
      stdout: translateLevel(supportsColor(true, tty.isatty(1))),
      stderr: translateLevel(supportsColor(true, tty.isatty(2)))
    };
  }
});

// node_modules/debug/src/node.js
var require_node = __commonJS({
  "node_modules/debug/src/node.js"(exports, module) {
    var tty = __require("tty");
    var util = __require("util");
    exports.init = init;
    exports.log = log;
    exports.formatArgs = formatArgs;
    exports.save = save;
    exports.load = load;
    exports.useColors = useColors;
    exports.destroy = util.deprecate(
      () => {
      },
      "Instance method `debug.destroy()` is deprecated and no longer does anything. It will be removed in the next major version of `debug`."
    );
    exports.colors = [6, 2, 3, 4, 5, 1];
    try {
      const supportsColor = require_supports_color();
      if (supportsColor && (supportsColor.stderr || supportsColor).level >= 2) {
        exports.colors = [
          20,
          21,
          26,
          27,
          32,
          33,
          38,
          39,
          40,
          41,
          42,
          43,
          44,
          45,
          56,
          57,
          62,
          63,
          68,
          69,
          74,
          75,
          76,
          77,
          78,
          79,
          80,
          81,
          92,
          93,
          98,
          99,
          112,
          113,
          128,
          129,
          134,
          135,
          148,
          149,
          160,
          161,
          162,
          163,
          164,
          165,
          166,
          167,
          168,
          169,
          170,
          171,
          172,
          173,
          178,
          179,
          184,
          185,
          196,
          197,
          198,
          199,
          200,
          201,
          202,
          203,
          204,
          205,
          206,
          207,
          208,
          209,
          214,
          215,
          220,
          221
        ];
      }
    } catch (error) {
    }
    exports.inspectOpts = Object.keys(process.env).filter((key) => {
      return /^debug_/i.test(key);
    }).reduce((obj, key) => {
      const prop = key.substring(6).toLowerCase().replace(/_([a-z])/g, (_, k) => {
        return k.toUpperCase();
      });
      let val = process.env[key];
      if (/^(yes|on|true|enabled)$/i.test(val)) {
        val = true;
      } else if (/^(no|off|false|disabled)$/i.test(val)) {
        val = false;
      } else if (val === "null") {
        val = null;
      } else {
        val = Number(val);
      }
      obj[prop] = val;
      return obj;
    }, {});
    function useColors() {
      return "colors" in exports.inspectOpts ? Boolean(exports.inspectOpts.colors) : tty.isatty(process.stderr.fd);
    }
    function formatArgs(args) {
      const { namespace: name, useColors: useColors2 } = this;
      if (useColors2) {
        const c = this.color;
        const colorCode = "\x1B[3" + (c < 8 ? c : "8;5;" + c);
        const prefix = `  ${colorCode};1m${name} \x1B[0m`;
        args[0] = prefix + args[0].split("\n").join("\n" + prefix);
        args.push(colorCode + "m+" + module.exports.humanize(this.diff) + "\x1B[0m");
      } else {
        args[0] = getDate() + name + " " + args[0];
      }
    }
    function getDate() {
      if (exports.inspectOpts.hideDate) {
        return "";
      }
      return (/* @__PURE__ */ new Date()).toISOString() + " ";
    }
    function log(...args) {
      return process.stderr.write(util.formatWithOptions(exports.inspectOpts, ...args) + "\n");
    }
    function save(namespaces) {
      if (namespaces) {
        process.env.DEBUG = namespaces;
      } else {
        delete process.env.DEBUG;
      }
    }
    function load() {
      return process.env.DEBUG;
    }
    function init(debug) {
      debug.inspectOpts = {};
      const keys = Object.keys(exports.inspectOpts);
      for (let i = 0; i < keys.length; i++) {
        debug.inspectOpts[keys[i]] = exports.inspectOpts[keys[i]];
      }
    }
    module.exports = require_common()(exports);
    var { formatters } = module.exports;
    formatters.o = function(v) {
      this.inspectOpts.colors = this.useColors;
      return util.inspect(v, this.inspectOpts).split("\n").map((str) => str.trim()).join(" ");
    };
    formatters.O = function(v) {
      this.inspectOpts.colors = this.useColors;
      return util.inspect(v, this.inspectOpts);
    };
  }
});

// node_modules/debug/src/index.js
var require_src = __commonJS({
  "node_modules/debug/src/index.js"(exports, module) {
    if (typeof process === "undefined" || process.type === "renderer" || process.browser === true || process.__nwjs) {
      module.exports = require_browser();
    } else {
      module.exports = require_node();
    }
  }
});

// node_modules/json-schema-resolver/ref-resolver.js
var require_ref_resolver = __commonJS({
  "node_modules/json-schema-resolver/ref-resolver.js"(exports, module) {
    "use strict";
    var URI = require_fast_uri();
    var cloner = require_rfdc()({ proto: true, circles: false });
    var { EventEmitter } = __require("events");
    var debug = require_src()("json-schema-resolver");
    var kIgnore = /* @__PURE__ */ Symbol("json-schema-resolver.ignore");
    var kRefToDef = /* @__PURE__ */ Symbol("json-schema-resolver.refToDef");
    var kConsumed = /* @__PURE__ */ Symbol("json-schema-resolver.consumed");
    var defaultOpts = {
      target: "draft-07",
      clone: false,
      buildLocalReference(json, baseUri, fragment, i) {
        return `def-${i}`;
      }
    };
    var targetSupported = ["draft-07"];
    var targetCfg = {
      "draft-07": {
        def: "definitions"
      },
      "draft-08": {
        def: "$defs"
      }
    };
    function jsonSchemaResolver(options) {
      const ee = new EventEmitter();
      const {
        clone,
        target,
        applicationUri,
        externalSchemas: rootExternalSchemas,
        buildLocalReference
      } = Object.assign({}, defaultOpts, options);
      const allIds = /* @__PURE__ */ new Map();
      let rolling = 0;
      ee.on("$id", collectIds);
      const allRefs = [];
      ee.on("$ref", collectRefs);
      if (!targetSupported.includes(target)) {
        throw new Error(`Unsupported JSON schema version ${target}`);
      }
      let defaultUri;
      if (applicationUri) {
        defaultUri = getRootUri(applicationUri);
        if (rootExternalSchemas) {
          for (const es of rootExternalSchemas) {
            mapIds(ee, defaultUri, es);
          }
          debug("Processed root external schemas");
        }
      } else if (rootExternalSchemas) {
        throw new Error("If you set root externalSchema, the applicationUri option is needed");
      }
      return {
        resolve,
        definitions() {
          const defKey = targetCfg[target].def;
          const x = { [defKey]: {} };
          allIds.forEach((json, baseUri) => {
            x[defKey][json[kRefToDef]] = json;
          });
          return x;
        }
      };
      function resolve(rootSchema, opts) {
        const { externalSchemas } = opts || {};
        if (!rootExternalSchemas) {
          allIds.clear();
        }
        allRefs.length = 0;
        if (clone) {
          rootSchema = cloner(rootSchema);
        }
        const appUri = defaultUri || getRootUri(rootSchema.$id);
        debug("Found app URI %o", appUri);
        if (externalSchemas) {
          for (const es of externalSchemas) {
            mapIds(ee, appUri, es);
          }
          debug("Processed external schemas");
        }
        const baseUri = URI.serialize(appUri);
        if (rootSchema.$id) {
          rootSchema.$id = baseUri;
        }
        Object.defineProperty(rootSchema, kIgnore, { value: true, enumerable: false });
        mapIds(ee, appUri, rootSchema);
        debug("Processed root schema");
        debug("Generating %d refs", allRefs.length);
        allRefs.forEach(({ baseUri: baseUri2, ref, refUri, json }) => {
          debug("Evaluating $ref %s", ref);
          if (ref[0] === "#") {
            return;
          }
          const evaluatedJson = allIds.get(baseUri2);
          if (!evaluatedJson) {
            debug("External $ref %s not provided with baseUri %s", ref, baseUri2);
            return;
          }
          Object.defineProperty(evaluatedJson, kConsumed, { value: true, enumerable: false });
          json.$ref = `#/definitions/${evaluatedJson[kRefToDef]}${refUri.fragment || ""}`;
        });
        if (externalSchemas) {
          const defKey = targetCfg[target].def;
          allIds.forEach((json, baseUri2) => {
            if (json[kConsumed] === true) {
              if (!rootSchema[defKey]) {
                rootSchema[defKey] = {};
              }
              rootSchema[defKey][json[kRefToDef]] = json;
            }
          });
        }
        return rootSchema;
      }
      function collectIds(json, baseUri, fragment) {
        if (json[kIgnore]) {
          return;
        }
        const rel = fragment && URI.serialize(fragment) || "";
        const id = URI.serialize(baseUri) + rel;
        if (!allIds.has(id)) {
          debug("Collected $id %s", id);
          const value = buildLocalReference(json, baseUri, fragment, rolling++);
          Object.defineProperty(json, kRefToDef, { value, enumerable: false });
          allIds.set(id, json);
        } else {
          debug("WARN duplicated id %s .. IGNORED - ", id);
        }
      }
      function collectRefs(json, baseUri, refVal) {
        const refUri = URI.parse(refVal);
        debug("Pre enqueue $ref %o", refUri);
        if (refUri.reference === "relative") {
          refUri.scheme = baseUri.scheme;
          refUri.userinfo = baseUri.userinfo;
          refUri.host = baseUri.host;
          refUri.port = baseUri.port;
          const newBaseUri = Object.assign({}, baseUri);
          newBaseUri.path = refUri.path;
          baseUri = newBaseUri;
        } else if (refUri.reference === "uri" || refUri.reference === "absolute") {
          baseUri = { ...refUri, fragment: void 0 };
        }
        const ref = URI.serialize(refUri);
        allRefs.push({
          baseUri: URI.serialize(baseUri),
          refUri,
          ref,
          json
        });
        debug("Enqueue $ref %s", ref);
      }
    }
    function mapIds(ee, baseUri, json) {
      if (!(json instanceof Object)) return;
      if (json.$id) {
        const $idUri = URI.parse(json.$id);
        let fragment = null;
        if ($idUri.reference === "absolute") {
          baseUri = $idUri;
        } else if ($idUri.reference === "relative") {
          const newBaseUri = Object.assign({}, baseUri);
          newBaseUri.path = $idUri.path;
          newBaseUri.fragment = $idUri.fragment;
          baseUri = newBaseUri;
        } else {
          fragment = $idUri;
        }
        ee.emit("$id", json, baseUri, fragment);
      }
      const fields = Object.keys(json);
      for (const prop of fields) {
        if (prop === "$ref") {
          ee.emit("$ref", json, baseUri, json[prop]);
        }
        mapIds(ee, baseUri, json[prop]);
      }
    }
    function getRootUri(strUri = "application.uri") {
      const uri = URI.parse(strUri);
      uri.fragment = void 0;
      return uri;
    }
    module.exports = jsonSchemaResolver;
  }
});

// node_modules/@fastify/swagger/lib/util/definitions.js
var require_definitions = __commonJS({
  "node_modules/@fastify/swagger/lib/util/definitions.js"(exports, module) {
    "use strict";
    var SCHEMA_MAP_KEYWORDS = /* @__PURE__ */ new Set([
      "properties",
      "patternProperties",
      "definitions",
      "$defs",
      "dependencies"
    ]);
    var DEFINITIONS_KEYWORDS = ["definitions", "$defs"];
    var SCHEMA_KEYWORDS = /* @__PURE__ */ new Set([
      "items",
      "additionalItems",
      "additionalProperties",
      "contains",
      "propertyNames",
      "not",
      "if",
      "then",
      "else",
      "allOf",
      "anyOf",
      "oneOf"
    ]);
    function isObject(value) {
      return typeof value === "object" && value !== null;
    }
    function escapeToken(token) {
      return token.replace(/~/g, "~0").replace(/\//g, "~1");
    }
    function walkSchema(schema, visit, pointer = [], baseId, baseDepth = 0) {
      if (!isObject(schema)) return;
      if (Array.isArray(schema)) {
        for (let i = 0; i < schema.length; i++) {
          pointer.push(`${i}`);
          walkSchema(schema[i], visit, pointer, baseId, baseDepth);
          pointer.pop();
        }
        return;
      }
      if (typeof schema.$id === "string" && schema.$id[0] !== "#") {
        baseId = schema.$id.split("#", 1)[0];
        baseDepth = pointer.length;
      }
      visit(schema, pointer, baseId, baseDepth);
      const keys = Object.keys(schema);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const value = schema[key];
        if (SCHEMA_KEYWORDS.has(key)) {
          pointer.push(key);
          walkSchema(value, visit, pointer, baseId, baseDepth);
          pointer.pop();
        } else if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
          const names = Object.keys(value);
          pointer.push(key);
          for (let j = 0; j < names.length; j++) {
            pointer.push(names[j]);
            walkSchema(value[names[j]], visit, pointer, baseId, baseDepth);
            pointer.pop();
          }
          pointer.pop();
        }
      }
    }
    function prepareSharedSchemas(schemas) {
      const anchors = /* @__PURE__ */ new Map();
      const refs = [];
      for (let i = 0; i < schemas.length; i++) {
        walkSchema(schemas[i], (subschema, pointer, baseId, baseDepth) => {
          if (baseId === void 0) return;
          const { $id, $ref } = subschema;
          if (typeof $ref === "string") {
            if ($ref[0] === "#") subschema.$ref = baseId + $ref;
            refs.push(subschema);
          }
          if (typeof $id !== "string" || $id[0] !== "#") return;
          delete subschema.$id;
          const anchor = baseId + $id;
          if ($id.length === 1 || anchors.has(anchor)) return;
          let jsonPointer = "";
          for (let j = baseDepth; j < pointer.length; j++) {
            jsonPointer += `/${escapeToken(pointer[j])}`;
          }
          anchors.set(anchor, `${baseId}#${jsonPointer}`);
        });
      }
      for (let i = 0; i < refs.length; i++) {
        const target = anchors.get(refs[i].$ref);
        if (target !== void 0) refs[i].$ref = target;
      }
      return anchors;
    }
    function rewriteAnchorRefs(node, anchors) {
      if (!isObject(node)) return node;
      if (Array.isArray(node)) {
        for (const item of node) rewriteAnchorRefs(item, anchors);
        return node;
      }
      if (typeof node.$ref === "string" && anchors.has(node.$ref)) {
        node.$ref = anchors.get(node.$ref);
      }
      for (const key of Object.keys(node)) {
        rewriteAnchorRefs(node[key], anchors);
      }
      return node;
    }
    function unknownSchemas(schemas, ref) {
      const known = ref.definitions().definitions;
      const unknown = {};
      for (const name of Object.keys(schemas)) {
        if (schemas[name] !== known[name]) unknown[name] = schemas[name];
      }
      return unknown;
    }
    function hoistDefinitions(schemaName, schema, sharedSchemas, hoisted) {
      const result = [];
      const owners = [];
      const taken = new Set(hoisted.values());
      if (isObject(schema.definitions)) {
        for (const key of Object.keys(schema.definitions)) {
          if (schema.definitions[key] === sharedSchemas[key]) {
            delete schema.definitions[key];
          }
        }
      }
      walkSchema(schema, (subschema, pointer) => {
        let prefix;
        for (let i = 0; i < DEFINITIONS_KEYWORDS.length; i++) {
          const keyword = DEFINITIONS_KEYWORDS[i];
          if (!isObject(subschema[keyword])) continue;
          owners.push([subschema, keyword]);
          if (prefix === void 0) {
            prefix = schemaName;
            for (let j = 0; j < pointer.length; j++) prefix += `/${escapeToken(pointer[j])}`;
          }
          const keys = Object.keys(subschema[keyword]);
          for (let j = 0; j < keys.length; j++) {
            const key = keys[j];
            const from = `${prefix}/${keyword}/${escapeToken(key)}`;
            let name = `${schemaName}-${key}`;
            for (let i2 = 1; Object.hasOwn(sharedSchemas, name) || taken.has(name); i2++) {
              name = `${schemaName}-${key}-${i2}`;
            }
            taken.add(name);
            hoisted.set(from, name);
            result.push([name, subschema[keyword][key]]);
          }
        }
      });
      for (const [owner, keyword] of owners) {
        delete owner[keyword];
      }
      return result;
    }
    function rewriteHoistedRefs(node, prefix, hoisted) {
      if (hoisted.size === 0 || !isObject(node)) return;
      if (Array.isArray(node)) {
        for (const item of node) rewriteHoistedRefs(item, prefix, hoisted);
        return;
      }
      if (typeof node.$ref === "string" && node.$ref.startsWith(prefix)) {
        const pointer = node.$ref.slice(prefix.length);
        for (let end = pointer.length; end > 0; end = pointer.lastIndexOf("/", end - 1)) {
          const name = hoisted.get(pointer.slice(0, end));
          if (name !== void 0) {
            node.$ref = prefix + name + pointer.slice(end);
            break;
          }
        }
      }
      for (const key of Object.keys(node)) {
        rewriteHoistedRefs(node[key], prefix, hoisted);
      }
    }
    function referenceInlineDefinitions(schema, ref, ignore = /* @__PURE__ */ new Set()) {
      const names = /* @__PURE__ */ new Map();
      const definitions = ref.definitions().definitions;
      for (const name of Object.keys(definitions)) {
        const { $id } = definitions[name];
        if (typeof $id === "string" && !ignore.has(name)) names.set($id, name);
      }
      const found = {};
      const replacements = [];
      walkSchema(schema, (subschema, pointer) => {
        if (pointer.length === 0) return;
        if (pointer.length === 2 && DEFINITIONS_KEYWORDS.includes(pointer[0])) return;
        if (typeof subschema.$id !== "string" || subschema.$id[0] === "#") return;
        const name = names.get(subschema.$id);
        if (name === void 0) return;
        found[name] = definitions[name];
        replacements.push([pointer.slice(), name]);
      });
      const replaced = [];
      for (const [pointer, name] of replacements) {
        if (replaced.some((prefix) => prefix.every((token, i) => pointer[i] === token))) continue;
        replaced.push(pointer);
        let parent = schema;
        for (let i = 0; i < pointer.length - 1; i++) parent = parent[pointer[i]];
        parent[pointer[pointer.length - 1]] = { $ref: `#/definitions/${name}` };
      }
      return found;
    }
    module.exports = {
      prepareSharedSchemas,
      referenceInlineDefinitions,
      rewriteAnchorRefs,
      hoistDefinitions,
      unknownSchemas,
      rewriteHoistedRefs
    };
  }
});

// node_modules/@fastify/swagger/lib/util/add-hook.js
var require_add_hook = __commonJS({
  "node_modules/@fastify/swagger/lib/util/add-hook.js"(exports, module) {
    "use strict";
    var Ref = require_ref_resolver();
    var cloner = require_rfdc()({ proto: true, circles: false });
    var { prepareSharedSchemas, referenceInlineDefinitions, rewriteAnchorRefs } = require_definitions();
    function addHook(fastify, pluginOptions) {
      const routes = [];
      const instances = [];
      const sharedSchemasMap = /* @__PURE__ */ new Map();
      let hookRun = false;
      fastify.addHook("onRoute", (routeOptions) => {
        const routeConfig = routeOptions.config || {};
        const swaggerConfig = routeConfig.swagger || {};
        if (routeOptions.method === "HEAD" && pluginOptions.exposeHeadRoutes !== true && swaggerConfig.exposeHeadRoute !== true) {
          return;
        }
        if (routeOptions.method === "HEAD" && routeOptions.schema !== void 0 && routeOptions.schema.operationId !== void 0) {
          routes.push(
            // If two routes with operationId are added to the swagger
            // object, it is no longer valid.
            // therefore we suffix the operationId with `-head`.
            Object.assign({}, routeOptions, {
              schema: Object.assign({}, routeOptions.schema, {
                operationId: `${routeOptions.schema.operationId}-head`
              })
            })
          );
          return;
        }
        routes.push(routeOptions);
      });
      fastify.addHook("onRegister", async (instance) => {
        instances.push(instance);
      });
      fastify.addHook("onReady", (done) => {
        hookRun = true;
        for (const instance of instances) {
          const allSchemas2 = instance.getSchemas();
          for (const schemaId of Object.keys(allSchemas2)) {
            sharedSchemasMap.set(schemaId, allSchemas2[schemaId]);
          }
        }
        const allSchemas = fastify.getSchemas();
        for (const schemaId of Object.keys(allSchemas)) {
          sharedSchemasMap.set(schemaId, allSchemas[schemaId]);
        }
        instances.length = 0;
        done();
      });
      return {
        routes,
        Ref() {
          if (hookRun === false) {
            throw new Error(".swagger() must be called after .ready()");
          }
          const externalSchemas = cloner(Array.from(sharedSchemasMap.values()));
          const anchors = prepareSharedSchemas(externalSchemas);
          const ref = Ref(
            Object.assign(
              { applicationUri: "todo.com" },
              pluginOptions.refResolver,
              { clone: true, externalSchemas }
            )
          );
          const resolve = anchors.size === 0 ? ref.resolve : (schema, opts) => ref.resolve(rewriteAnchorRefs(cloner(schema), anchors), opts);
          const sharedNames = new Set(Object.keys(ref.definitions().definitions));
          const inlineDefinitions = {};
          return {
            definitions: ref.definitions,
            resolve(schema, opts) {
              const resolved = resolve(schema, opts);
              const queue = [resolved];
              while (queue.length > 0) {
                const found = referenceInlineDefinitions(queue.shift(), ref, sharedNames);
                for (const name of Object.keys(found)) {
                  if (Object.hasOwn(inlineDefinitions, name)) continue;
                  inlineDefinitions[name] = found[name];
                  queue.push(found[name]);
                }
              }
              return resolved;
            },
            // the definitions collected from the route schemas, by name
            inlineDefinitions
          };
        }
      };
    }
    module.exports = {
      addHook
    };
  }
});

// node_modules/@fastify/swagger/lib/util/should-route-hide.js
var require_should_route_hide = __commonJS({
  "node_modules/@fastify/swagger/lib/util/should-route-hide.js"(exports, module) {
    "use strict";
    function shouldRouteHide(schema, opts) {
      const { hiddenTag, hideUntagged } = opts;
      if (schema?.hide) {
        return true;
      }
      const tags = schema?.tags || [];
      if (tags.length === 0 && hideUntagged) {
        return true;
      }
      if (tags.includes(hiddenTag)) {
        return true;
      }
      return false;
    }
    module.exports = {
      shouldRouteHide
    };
  }
});

// node_modules/@fastify/swagger/lib/util/read-package-json.js
var require_read_package_json = __commonJS({
  "node_modules/@fastify/swagger/lib/util/read-package-json.js"(exports, module) {
    "use strict";
    var fs = __require("node:fs");
    var path = __require("node:path");
    function readPackageJson() {
      try {
        return JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json")));
      } catch {
        return {};
      }
    }
    module.exports = {
      readPackageJson
    };
  }
});

// node_modules/@fastify/swagger/lib/symbols.js
var require_symbols = __commonJS({
  "node_modules/@fastify/swagger/lib/symbols.js"(exports, module) {
    "use strict";
    var rawRequired = /* @__PURE__ */ Symbol("@fastify/swagger.rawRequired");
    module.exports = {
      rawRequired
    };
  }
});

// node_modules/@fastify/swagger/lib/constants.js
var require_constants = __commonJS({
  "node_modules/@fastify/swagger/lib/constants.js"(exports, module) {
    "use strict";
    var xConsume = "x-consume";
    var xResponseDescription = "x-response-description";
    var xExamples = "x-examples";
    module.exports = {
      xConsume,
      xResponseDescription,
      xExamples
    };
  }
});

// node_modules/@fastify/swagger/lib/util/resolve-local-ref.js
var require_resolve_local_ref = __commonJS({
  "node_modules/@fastify/swagger/lib/util/resolve-local-ref.js"(exports, module) {
    "use strict";
    var { rawRequired } = require_symbols();
    var { xConsume } = require_constants();
    function resolveLocalRef(jsonSchema, externalSchemas) {
      if (jsonSchema.properties !== void 0) {
        const propertiesMap = Object.keys(jsonSchema.properties).reduce((acc, headers) => {
          const rewriteProps = {};
          rewriteProps.required = Array.isArray(jsonSchema.required) && jsonSchema.required.indexOf(headers) >= 0 || false;
          if (jsonSchema.properties[headers][xConsume]) {
            rewriteProps[rawRequired] = jsonSchema.properties[headers].required;
          }
          const newProps = Object.assign({}, jsonSchema.properties[headers], rewriteProps);
          return Object.assign({}, acc, { [headers]: newProps });
        }, {});
        return propertiesMap;
      }
      if (jsonSchema.oneOf || jsonSchema.anyOf || jsonSchema.allOf) {
        const schemas = jsonSchema.oneOf || jsonSchema.anyOf || jsonSchema.allOf;
        return schemas.reduce((acc, schema) => Object.assign(acc, resolveLocalRef(schema, externalSchemas)), {});
      }
      if (jsonSchema.$ref) {
        const localRef = jsonSchema.$ref.split("/", 3)[2];
        if (externalSchemas[localRef]) return resolveLocalRef(externalSchemas[localRef], externalSchemas);
        return resolveLocalRef(externalSchemas[jsonSchema.$ref.split("/", 4)[3]], externalSchemas);
      }
      return jsonSchema;
    }
    module.exports = {
      resolveLocalRef
    };
  }
});

// node_modules/@fastify/swagger/lib/util/resolve-schema-reference.js
var require_resolve_schema_reference = __commonJS({
  "node_modules/@fastify/swagger/lib/util/resolve-schema-reference.js"(exports, module) {
    "use strict";
    function resolveSchemaReference(rawSchema, ref) {
      const resolvedReference = ref.resolve(rawSchema);
      const schemaId = resolvedReference?.$ref?.split("/", 3)[2];
      if (schemaId === void 0) {
        return void 0;
      }
      return ref.definitions().definitions[schemaId];
    }
    module.exports = {
      resolveSchemaReference
    };
  }
});

// node_modules/@fastify/swagger/lib/util/match-params.js
var require_match_params = __commonJS({
  "node_modules/@fastify/swagger/lib/util/match-params.js"(exports, module) {
    "use strict";
    var paramPattern = /\{[^{}]+\}/gu;
    function hasParams(url) {
      if (!url) return false;
      return paramPattern.test(url);
    }
    function matchParams(url) {
      if (!url) return [];
      return url.match(paramPattern) || [];
    }
    module.exports = {
      hasParams,
      matchParams
    };
  }
});

// node_modules/@fastify/swagger/lib/util/generate-params-schema.js
var require_generate_params_schema = __commonJS({
  "node_modules/@fastify/swagger/lib/util/generate-params-schema.js"(exports, module) {
    "use strict";
    var { matchParams } = require_match_params();
    var namePattern = /\{([^{}]+)\}/u;
    function paramName(param) {
      return param.replace(namePattern, (_, captured) => captured);
    }
    function generateParamsSchema(url) {
      const params = matchParams(url);
      const schema = {
        params: {
          type: "object",
          properties: {}
        }
      };
      schema.params.properties = params.reduce((acc, param) => {
        const name = paramName(param);
        acc[name] = {
          type: "string"
        };
        return acc;
      }, {});
      return schema;
    }
    module.exports = {
      generateParamsSchema,
      paramName
    };
  }
});

// node_modules/@fastify/swagger/lib/spec/constants.js
var require_constants2 = __commonJS({
  "node_modules/@fastify/swagger/lib/spec/constants.js"(exports, module) {
    module.exports = {
      CUSTOM_HEADER: "x-"
    };
  }
});

// node_modules/@fastify/swagger/lib/spec/swagger/utils.js
var require_utils2 = __commonJS({
  "node_modules/@fastify/swagger/lib/spec/swagger/utils.js"(exports, module) {
    "use strict";
    var { readPackageJson } = require_read_package_json();
    var { formatParamUrl } = require_format_param_url();
    var { resolveLocalRef } = require_resolve_local_ref();
    var { hoistDefinitions, unknownSchemas } = require_definitions();
    var { resolveSchemaReference } = require_resolve_schema_reference();
    var { xResponseDescription, xConsume } = require_constants();
    var { generateParamsSchema } = require_generate_params_schema();
    var { hasParams } = require_match_params();
    var { CUSTOM_HEADER } = require_constants2();
    function prepareDefaultOptions(opts) {
      const swagger = opts.swagger;
      const info = swagger.info || null;
      const host = swagger.host || null;
      const schemes = swagger.schemes || null;
      const consumes = swagger.consumes || null;
      const produces = swagger.produces || null;
      const definitions = swagger.definitions || null;
      const paths = swagger.paths || null;
      const basePath = swagger.basePath || null;
      const securityDefinitions = swagger.securityDefinitions || null;
      const security = swagger.security || null;
      const tags = swagger.tags || null;
      const externalDocs = swagger.externalDocs || null;
      const stripBasePath = opts.stripBasePath;
      const transform = opts.transform;
      const transformObject = opts.transformObject;
      const hiddenTag = opts.hiddenTag;
      const hideUntagged = opts.hideUntagged;
      const extensions = [];
      for (const [key, value] of Object.entries(opts.swagger)) {
        if (key.startsWith(CUSTOM_HEADER)) {
          extensions.push([key, value]);
        }
      }
      return {
        info,
        host,
        schemes,
        consumes,
        produces,
        definitions,
        paths,
        basePath,
        securityDefinitions,
        security,
        tags,
        externalDocs,
        stripBasePath,
        transform,
        transformObject,
        hiddenTag,
        extensions,
        hideUntagged
      };
    }
    function prepareSwaggerObject(opts) {
      const pkg = readPackageJson();
      const swaggerObject = {
        swagger: "2.0",
        info: {
          version: pkg.version || "1.0.0",
          title: pkg.name || ""
        },
        definitions: {},
        paths: {}
      };
      if (opts.info) swaggerObject.info = opts.info;
      if (opts.host) swaggerObject.host = opts.host;
      if (opts.schemes) swaggerObject.schemes = opts.schemes;
      if (opts.basePath) swaggerObject.basePath = opts.basePath;
      if (opts.consumes) swaggerObject.consumes = opts.consumes;
      if (opts.produces) swaggerObject.produces = opts.produces;
      if (opts.definitions) swaggerObject.definitions = opts.definitions;
      if (opts.paths) swaggerObject.paths = opts.paths;
      if (opts.securityDefinitions) swaggerObject.securityDefinitions = opts.securityDefinitions;
      if (opts.security) swaggerObject.security = opts.security;
      if (opts.tags) swaggerObject.tags = opts.tags;
      if (opts.externalDocs) swaggerObject.externalDocs = opts.externalDocs;
      for (const [key, value] of opts.extensions) {
        swaggerObject[key] = value;
      }
      return swaggerObject;
    }
    function normalizeUrl(url, basePath, stripBasePath) {
      let path;
      if (stripBasePath && url.startsWith(basePath)) {
        path = url.replace(basePath, "");
      } else {
        path = url;
      }
      if (path[0] !== "/") {
        path = "/" + String(path);
      }
      return formatParamUrl(path);
    }
    function plainJsonObjectToSwagger2(container, jsonSchema, externalSchemas, securityIgnores = []) {
      const obj = resolveLocalRef(jsonSchema, externalSchemas);
      let toSwaggerProp;
      switch (container) {
        case "header":
        case "query":
          toSwaggerProp = function(propertyName, jsonSchemaElement) {
            if (jsonSchemaElement[xConsume]) {
              throw new Error('Complex serialization is not supported by Swagger. Remove "' + xConsume + '" for "' + propertyName + '" querystring/header schema or change specification to OpenAPI');
            }
            jsonSchemaElement.in = container;
            jsonSchemaElement.name = propertyName;
            return jsonSchemaElement;
          };
          break;
        case "formData":
          toSwaggerProp = function(propertyName, jsonSchemaElement) {
            delete jsonSchemaElement.$id;
            jsonSchemaElement.in = container;
            jsonSchemaElement.name = propertyName;
            if (jsonSchemaElement.contentEncoding === "binary") {
              delete jsonSchemaElement.contentEncoding;
              jsonSchemaElement.type = "file";
            }
            return jsonSchemaElement;
          };
          break;
        case "path":
          toSwaggerProp = function(propertyName, jsonSchemaElement) {
            jsonSchemaElement.in = container;
            jsonSchemaElement.name = propertyName;
            jsonSchemaElement.required = true;
            return jsonSchemaElement;
          };
          break;
      }
      return Object.keys(obj).filter((propKey) => !securityIgnores.includes(propKey)).map((propKey) => {
        return toSwaggerProp(propKey, obj[propKey]);
      });
    }
    function replaceUnsupported(jsonSchema) {
      if (typeof jsonSchema === "object" && jsonSchema !== null) {
        if (jsonSchema.patternProperties) {
          jsonSchema.additionalProperties = { type: "string" };
          delete jsonSchema.patternProperties;
        } else if (jsonSchema.const !== void 0) {
          jsonSchema.enum = [jsonSchema.const];
          delete jsonSchema.const;
        }
        Object.keys(jsonSchema).forEach(function(key) {
          jsonSchema[key] = replaceUnsupported(jsonSchema[key]);
        });
      }
      return jsonSchema;
    }
    function isConsumesFormOnly(schema) {
      const consumes = schema.consumes;
      return consumes && consumes.length === 1 && (consumes[0] === "application/x-www-form-urlencoded" || consumes[0] === "multipart/form-data");
    }
    function resolveBodyParams(parameters, schema, ref) {
      const resolved = ref.resolve(schema);
      replaceUnsupported(resolved);
      parameters.push({
        name: "body",
        in: "body",
        description: resolved?.description,
        schema: resolved
      });
    }
    function resolveCommonParams(container, parameters, schema, ref, sharedSchemas, securityIgnores) {
      const resolved = ref.resolve(schema);
      const arr = plainJsonObjectToSwagger2(container, resolved, sharedSchemas, securityIgnores);
      arr.forEach((swaggerSchema) => parameters.push(swaggerSchema));
    }
    function findReferenceDescription(rawSchema, ref) {
      const resolved = resolveSchemaReference(rawSchema, ref);
      return resolved?.description;
    }
    function resolveResponse(fastifyResponseJson, ref) {
      if (!fastifyResponseJson) {
        return { 200: { description: "Default Response" } };
      }
      const responsesContainer = {};
      const statusCodes = Object.keys(fastifyResponseJson);
      statusCodes.forEach((statusCode) => {
        const rawJsonSchema = fastifyResponseJson[statusCode];
        const resolved = ref.resolve(rawJsonSchema);
        delete resolved.$schema;
        const deXXStatusCode = statusCode.toUpperCase().replace("XX", "00");
        if (statusCode.toUpperCase().includes("XX") && statusCodes.includes(deXXStatusCode)) {
          return;
        }
        if (statusCode !== "default") {
          statusCode = deXXStatusCode;
        }
        const response = {
          description: rawJsonSchema[xResponseDescription] || rawJsonSchema.description || findReferenceDescription(rawJsonSchema, ref) || "Default Response"
        };
        if (rawJsonSchema.headers) {
          response.headers = rawJsonSchema.headers;
          delete resolved.headers;
        }
        if (rawJsonSchema.type !== "null") {
          const schema = { ...resolved };
          replaceUnsupported(schema);
          delete schema[xResponseDescription];
          response.schema = schema;
        }
        responsesContainer[statusCode] = response;
      });
      return responsesContainer;
    }
    function prepareSwaggerMethod(schema, ref, swaggerObject, url) {
      const swaggerMethod = {};
      const parameters = [];
      const securityIgnores = [
        ...swaggerObject?.security || [],
        ...schema?.security || []
      ].reduce((acc, securitySchemeGroup) => {
        Object.keys(securitySchemeGroup).forEach((securitySchemeLabel) => {
          const { name, in: category } = swaggerObject.securityDefinitions[securitySchemeLabel];
          if (!acc[category]) {
            acc[category] = [];
          }
          acc[category].push(name);
        });
        return acc;
      }, {});
      if (schema) {
        if (schema.operationId) swaggerMethod.operationId = schema.operationId;
        if (schema.summary) swaggerMethod.summary = schema.summary;
        if (schema.description) swaggerMethod.description = schema.description;
        if (schema.externalDocs) swaggerMethod.externalDocs = schema.externalDocs;
        if (schema.tags) swaggerMethod.tags = schema.tags;
        if (schema.produces) swaggerMethod.produces = schema.produces;
        if (schema.consumes) swaggerMethod.consumes = schema.consumes;
        if (schema.querystring) resolveCommonParams("query", parameters, schema.querystring, ref, swaggerObject.definitions, securityIgnores.query);
        if (schema.body) {
          const isConsumesAllFormOnly = isConsumesFormOnly(schema) || isConsumesFormOnly(swaggerObject);
          isConsumesAllFormOnly ? resolveCommonParams("formData", parameters, schema.body, ref, swaggerObject.definitions) : resolveBodyParams(parameters, schema.body, ref);
        }
        if (schema.params) resolveCommonParams("path", parameters, schema.params, ref, swaggerObject.definitions);
        if (schema.headers) resolveCommonParams("header", parameters, schema.headers, ref, swaggerObject.definitions, securityIgnores.header);
        if (parameters.length > 0) swaggerMethod.parameters = parameters;
        if (schema.deprecated) swaggerMethod.deprecated = schema.deprecated;
        if (schema.security) swaggerMethod.security = schema.security;
        for (const key of Object.keys(schema)) {
          if (key.startsWith(CUSTOM_HEADER)) {
            swaggerMethod[key] = schema[key];
          }
        }
      }
      if ((!schema || !schema.params) && hasParams(url)) {
        const schemaGenerated = generateParamsSchema(url);
        resolveCommonParams("path", parameters, schemaGenerated.params, ref, swaggerObject.definitions);
        swaggerMethod.parameters = parameters;
      }
      swaggerMethod.responses = resolveResponse(schema ? schema.response : null, ref);
      return swaggerMethod;
    }
    function prepareSwaggerDefinitions(definitions, ref, hoisted = /* @__PURE__ */ new Map()) {
      const externalSchemas = [unknownSchemas(definitions, ref)];
      return Object.entries(definitions).reduce((res, [name, definition]) => {
        const _ = { ...definition };
        const resolved = ref.resolve(_, { externalSchemas });
        delete resolved.$id;
        res[name] = resolved;
        for (const [hoistedName, schema] of hoistDefinitions(name, resolved, { ...ref.definitions().definitions, ...definitions }, hoisted)) {
          delete schema.$id;
          res[hoistedName] = schema;
        }
        return res;
      }, {});
    }
    module.exports = {
      prepareDefaultOptions,
      prepareSwaggerObject,
      prepareSwaggerMethod,
      normalizeUrl,
      prepareSwaggerDefinitions
    };
  }
});

// node_modules/@fastify/swagger/lib/spec/swagger/index.js
var require_swagger = __commonJS({
  "node_modules/@fastify/swagger/lib/spec/swagger/index.js"(exports, module) {
    "use strict";
    var yaml = require_dist();
    var { shouldRouteHide } = require_should_route_hide();
    var { rewriteHoistedRefs } = require_definitions();
    var { prepareDefaultOptions, prepareSwaggerObject, prepareSwaggerMethod, normalizeUrl, prepareSwaggerDefinitions } = require_utils2();
    module.exports = function(opts, cache, routes, Ref) {
      let ref;
      const defOpts = prepareDefaultOptions(opts);
      return function(opts2) {
        if (opts2?.yaml) {
          if (cache.string) return cache.string;
        } else {
          if (cache.object) return cache.object;
        }
        const swaggerObject = prepareSwaggerObject(defOpts);
        ref = Ref();
        const hoisted = /* @__PURE__ */ new Map();
        swaggerObject.definitions = prepareSwaggerDefinitions({
          ...swaggerObject.definitions,
          ...ref.definitions().definitions
        }, ref, hoisted);
        for (const route of routes) {
          const transformResult = route.config?.swaggerTransform !== void 0 ? route.config.swaggerTransform ? route.config.swaggerTransform({ schema: route.schema, url: route.url, route, swaggerObject }) : {} : defOpts.transform ? defOpts.transform({ schema: route.schema, url: route.url, route, swaggerObject }) : {};
          const schema = transformResult.schema || route.schema;
          const shouldRouteHideOpts = {
            hiddenTag: defOpts.hiddenTag,
            hideUntagged: defOpts.hideUntagged
          };
          if (shouldRouteHide(schema, shouldRouteHideOpts)) continue;
          let url = transformResult.url || route.url;
          url = normalizeUrl(url, defOpts.basePath, defOpts.stripBasePath);
          const swaggerRoute = Object.assign({}, swaggerObject.paths[url]);
          const swaggerMethod = prepareSwaggerMethod(schema, ref, swaggerObject, url);
          if (route.links) {
            throw new Error("Swagger (Open API v2) does not support Links. Upgrade to OpenAPI v3 (see @fastify/swagger readme)");
          }
          const methods = typeof route.method === "string" ? [route.method] : route.method;
          for (const method of methods) {
            swaggerRoute[method.toLowerCase()] = swaggerMethod;
          }
          swaggerObject.paths[url] = swaggerRoute;
        }
        Object.assign(swaggerObject.definitions, prepareSwaggerDefinitions(ref.inlineDefinitions, ref, hoisted));
        rewriteHoistedRefs(swaggerObject, "#/definitions/", hoisted);
        const transformObjectResult = defOpts.transformObject ? defOpts.transformObject({ swaggerObject }) : swaggerObject;
        if (opts2?.yaml) {
          cache.string = yaml.stringify(transformObjectResult, { strict: false });
          return cache.string;
        }
        cache.object = transformObjectResult;
        return cache.object;
      };
    };
  }
});

// node_modules/@fastify/swagger/lib/spec/openapi/utils.js
var require_utils3 = __commonJS({
  "node_modules/@fastify/swagger/lib/spec/openapi/utils.js"(exports, module) {
    "use strict";
    var { readPackageJson } = require_read_package_json();
    var { formatParamUrl } = require_format_param_url();
    var { resolveLocalRef } = require_resolve_local_ref();
    var { hoistDefinitions, unknownSchemas } = require_definitions();
    var { resolveSchemaReference } = require_resolve_schema_reference();
    var { xResponseDescription, xConsume, xExamples } = require_constants();
    var { rawRequired } = require_symbols();
    var { generateParamsSchema } = require_generate_params_schema();
    var { hasParams } = require_match_params();
    var { CUSTOM_HEADER } = require_constants2();
    function prepareDefaultOptions(opts) {
      const openapi = opts.openapi;
      const info = openapi.info || null;
      const servers = openapi.servers || null;
      const components = openapi.components || null;
      const security = openapi.security || null;
      const tags = openapi.tags || null;
      const externalDocs = openapi.externalDocs || null;
      const stripBasePath = opts.stripBasePath;
      const transform = opts.transform;
      const transformObject = opts.transformObject;
      const hiddenTag = opts.hiddenTag;
      const hideUntagged = opts.hideUntagged;
      const extensions = [];
      const convertConstToEnum = opts.convertConstToEnum;
      for (const [key, value] of Object.entries(opts.openapi)) {
        if (key.startsWith(CUSTOM_HEADER)) {
          extensions.push([key, value]);
        }
      }
      return {
        ...openapi,
        info,
        servers,
        components,
        security,
        tags,
        externalDocs,
        stripBasePath,
        transform,
        transformObject,
        hiddenTag,
        extensions,
        hideUntagged,
        convertConstToEnum
      };
    }
    function prepareOpenapiObject(opts) {
      const pkg = readPackageJson();
      const openapiObject = {
        openapi: "3.0.3",
        info: {
          version: pkg.version || "1.0.0",
          title: pkg.name || ""
        },
        components: { schemas: {} },
        paths: {}
      };
      if (opts.openapi) openapiObject.openapi = opts.openapi;
      if (opts.$self) openapiObject.$self = opts.$self;
      if (opts.info) openapiObject.info = opts.info;
      if (opts.servers) openapiObject.servers = opts.servers;
      if (opts.components) openapiObject.components = Object.assign({}, opts.components, { schemas: Object.assign({}, opts.components.schemas) });
      if (opts.paths) openapiObject.paths = opts.paths;
      if (opts.webhooks) openapiObject.webhooks = opts.webhooks;
      if (opts.security) openapiObject.security = opts.security;
      if (opts.tags) openapiObject.tags = opts.tags;
      if (opts.externalDocs) openapiObject.externalDocs = opts.externalDocs;
      for (const [key, value] of opts.extensions) {
        openapiObject[key] = value;
      }
      return openapiObject;
    }
    function normalizeUrl(url, serverUrls, stripBasePath) {
      if (!stripBasePath) return formatParamUrl(url);
      serverUrls.forEach(function(serverUrl) {
        const basePath = serverUrl[0] === "/" ? serverUrl : new URL(serverUrl).pathname;
        if (url.startsWith(basePath) && basePath !== "/") {
          url = url.replace(basePath, "");
        }
      });
      return formatParamUrl(url);
    }
    function resolveServerUrls(servers) {
      const resolvedUrls = [];
      const findVariablesRegex = /\{([^{}]+)\}/gu;
      servers = Array.isArray(servers) ? servers : [];
      for (const server of servers) {
        const originalUrl = server.url;
        const variables = server.variables;
        let url = originalUrl;
        const matches = url.matchAll(findVariablesRegex);
        for (const [nameInBrackets, name] of matches) {
          const value = variables?.[name]?.default;
          if (value === void 0) {
            throw new Error(`Server URL ${originalUrl} could not be resolved. Make sure to provide a default value for each URL variable.`);
          }
          url = url.replace(nameInBrackets, value);
        }
        resolvedUrls.push(url);
      }
      return resolvedUrls;
    }
    function convertExamplesArrayToObject(examples) {
      return examples.reduce((examplesObject, example, index) => {
        if (typeof example === "object") {
          examplesObject["example" + (index + 1)] = { value: example };
        } else {
          examplesObject[example] = { value: example };
        }
        return examplesObject;
      }, {});
    }
    function plainJsonObjectToOpenapi3(opts, container, jsonSchema, externalSchemas, securityIgnores = []) {
      const localJsonSchema = resolveLocalRef(jsonSchema, externalSchemas);
      const obj = convertJsonSchemaToOpenapi3(opts, localJsonSchema);
      let toOpenapiProp;
      switch (container) {
        case "cookie":
        case "header":
        case "query":
          toOpenapiProp = function(propertyName, jsonSchemaElement, required) {
            let result = {
              in: container,
              name: propertyName,
              required
            };
            const media = schemaToMedia(jsonSchemaElement);
            if (jsonSchemaElement[xConsume]) {
              media.schema.required = jsonSchemaElement[rawRequired];
              result.content = {
                [jsonSchemaElement[xConsume]]: media
              };
              delete result.content[jsonSchemaElement[xConsume]].schema[xConsume];
            } else {
              result = { ...media, ...result };
            }
            if (jsonSchemaElement.description) result.description = jsonSchemaElement.description;
            if (jsonSchema.style) result.style = jsonSchema.style;
            if (jsonSchema.explode != null) result.explode = jsonSchema.explode;
            if (jsonSchema.allowReserved === true && container === "query") {
              result.allowReserved = jsonSchema.allowReserved;
            }
            return result;
          };
          break;
        case "path":
          toOpenapiProp = function(propertyName, jsonSchemaElement) {
            const media = schemaToMedia(jsonSchemaElement);
            const result = {
              ...media,
              in: container,
              name: propertyName,
              required: true
            };
            if (jsonSchemaElement.description) result.description = jsonSchemaElement.description;
            return result;
          };
          break;
      }
      return Object.keys(obj).filter((propKey) => !securityIgnores.includes(propKey)).map((propKey) => {
        const jsonSchema2 = toOpenapiProp(propKey, obj[propKey], localJsonSchema[propKey]?.required);
        if (jsonSchema2.schema) {
          if (jsonSchema2.schema.required !== void 0) delete jsonSchema2.schema.required;
          if (jsonSchema2.schema.description !== void 0) delete jsonSchema2.schema.description;
        }
        return jsonSchema2;
      });
    }
    var schemaTypeToNestedSchemas = {
      object: (schema) => {
        return [
          ...Object.values(schema.properties || {}),
          ...Object.values(schema.patternProperties || {}),
          ...Object.values(schema.additionalProperties || {})
        ];
      },
      array: (schema) => {
        return [
          ...schema.items ? [schema.items] : [],
          ...schema.contains ? [schema.contains] : []
        ];
      }
    };
    function resolveSchemaExamples(opts, schema) {
      const keepExamplesArray = !isOpenapi30(opts) && Array.isArray(schema.examples);
      const example = schema[xExamples] ?? (keepExamplesArray ? void 0 : schema.examples?.[0]);
      if (typeof example !== "undefined") {
        schema.example = example;
      }
      delete schema[xExamples];
      if (!keepExamplesArray) delete schema.examples;
    }
    function resolveSchemaExamplesRecursive(opts, schema) {
      resolveSchemaExamples(opts, schema);
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      const nestedSchemas = types.flatMap((t) => schemaTypeToNestedSchemas[t]?.(schema) ?? []);
      for (const nestedSchema of nestedSchemas) {
        resolveSchemaExamplesRecursive(opts, nestedSchema);
      }
    }
    function schemaToMedia(schema) {
      const media = { schema };
      if (schema.examples?.length === 1) {
        media.example = schema.examples[0];
        delete schema.examples;
      } else if (schema.examples?.length > 1) {
        media.examples = convertExamplesArrayToObject(schema.examples);
        delete schema.examples;
      }
      if (schema[xExamples]) {
        media.examples = schema[xExamples];
        delete schema[xExamples];
      }
      return media;
    }
    function schemaToMediaRecursive(opts, schema) {
      const media = schemaToMedia(schema);
      resolveSchemaExamplesRecursive(opts, schema);
      return media;
    }
    function resolveBodyParams(opts, body, schema, consumes, ref) {
      const resolved = convertJsonSchemaToOpenapi3(opts, ref.resolve(schema));
      if (resolved.content?.[Object.keys(resolved.content)[0]].schema) {
        for (const contentType in schema.content) {
          body.content[contentType] = schemaToMediaRecursive(opts, resolved.content[contentType].schema);
        }
      } else {
        if (Array.isArray(consumes) && consumes.length === 0 || consumes === void 0) {
          consumes = ["application/json"];
        }
        const media = schemaToMediaRecursive(opts, resolved);
        consumes.forEach((consume) => {
          body.content[consume] = media;
        });
        if (resolved?.description) {
          body.description = resolved.description;
        }
      }
    }
    function resolveCommonParams(opts, container, parameters, schema, ref, sharedSchemas, securityIgnores) {
      const schemasPath = "#/components/schemas/";
      let resolved = convertJsonSchemaToOpenapi3(opts, ref.resolve(schema));
      if (resolved.$ref?.startsWith(schemasPath)) {
        const parts = resolved.$ref.split(schemasPath);
        const pathParts = parts[1].split("/");
        resolved = pathParts.reduce((resolved2, pathPart) => resolved2[pathPart], ref.definitions().definitions);
      }
      const arr = plainJsonObjectToOpenapi3(opts, container, resolved, { ...sharedSchemas, ...ref.definitions().definitions }, securityIgnores);
      arr.forEach((swaggerSchema) => parameters.push(swaggerSchema));
    }
    function findReferenceDescription(rawSchema, ref) {
      const resolved = resolveSchemaReference(rawSchema, ref);
      return resolved?.description;
    }
    function resolveResponse(opts, fastifyResponseJson, produces, ref) {
      if (!fastifyResponseJson) {
        return { 200: { description: "Default Response" } };
      }
      const responsesContainer = {};
      const statusCodes = Object.keys(fastifyResponseJson);
      statusCodes.forEach((statusCode) => {
        const rawJsonSchema = fastifyResponseJson[statusCode];
        const resolved = convertJsonSchemaToOpenapi3(opts, ref.resolve(rawJsonSchema));
        if (statusCode !== "default") {
          statusCode = statusCode.toUpperCase();
        }
        const response = {
          description: resolved[xResponseDescription] || rawJsonSchema.description || findReferenceDescription(rawJsonSchema, ref) || "Default Response"
        };
        if (rawJsonSchema.headers) {
          response.headers = {};
          Object.keys(rawJsonSchema.headers).forEach(function(key) {
            const header = {
              schema: { ...rawJsonSchema.headers[key] }
            };
            if (rawJsonSchema.headers[key].description) {
              header.description = rawJsonSchema.headers[key].description;
              delete header.schema.description;
            }
            response.headers[key] = header;
          });
          delete resolved.headers;
        }
        if (rawJsonSchema.type !== "null") {
          if (resolved.content?.[Object.keys(resolved.content)[0]].schema) {
            response.content = resolved.content;
          } else {
            const content = {};
            if (Array.isArray(produces) && produces.length === 0 || produces === void 0) {
              produces = ["application/json"];
            }
            delete resolved[xResponseDescription];
            const media = schemaToMediaRecursive(opts, resolved);
            for (const produce of produces) {
              content[produce] = media;
            }
            response.content = content;
          }
        }
        responsesContainer[statusCode] = response;
      });
      return responsesContainer;
    }
    function resolveCallbacks(opts, schema, ref) {
      const callbacksContainer = {};
      for (const eventName in schema) {
        if (!schema[eventName]) {
          continue;
        }
        callbacksContainer[eventName] = {};
        const eventSchema = schema[eventName];
        for (const callbackUrl in eventSchema) {
          if (!callbackUrl || !eventSchema[callbackUrl]) {
            continue;
          }
          callbacksContainer[eventName][callbackUrl] = {};
          const callbackSchema = eventSchema[callbackUrl];
          for (const httpMethodName in callbackSchema) {
            if (!httpMethodName || !callbackSchema[httpMethodName]) {
              continue;
            }
            const httpMethodSchema = callbackSchema[httpMethodName];
            const httpMethodContainer = {};
            if (httpMethodSchema.requestBody) {
              httpMethodContainer.requestBody = convertJsonSchemaToOpenapi3(
                opts,
                ref.resolve(httpMethodSchema.requestBody)
              );
            }
            httpMethodContainer.responses = httpMethodSchema.responses ? convertJsonSchemaToOpenapi3(opts, ref.resolve(httpMethodSchema.responses)) : { "2XX": { description: "Default Response" } };
            callbacksContainer[eventName][callbackUrl][httpMethodName] = httpMethodContainer;
          }
        }
      }
      return callbacksContainer;
    }
    function prepareOpenapiMethod(opts, schema, ref, openapiObject, url) {
      const openapiMethod = {};
      const parameters = [];
      const securityIgnores = [
        ...openapiObject?.security || [],
        ...schema?.security || []
      ].reduce((acc, securitySchemeGroup) => {
        Object.keys(securitySchemeGroup).forEach((securitySchemeLabel) => {
          const scheme = openapiObject.components.securitySchemes[securitySchemeLabel];
          const isBearer = scheme.type === "http" && scheme.scheme === "bearer";
          const category = isBearer ? "header" : scheme.in;
          const name = isBearer ? "authorization" : scheme.name;
          if (!acc[category]) {
            acc[category] = [];
          }
          acc[category].push(name);
        });
        return acc;
      }, {});
      if (schema) {
        if (schema.operationId) openapiMethod.operationId = schema.operationId;
        if (schema.summary) openapiMethod.summary = schema.summary;
        if (schema.tags) openapiMethod.tags = schema.tags;
        if (schema.description) openapiMethod.description = schema.description;
        if (schema.externalDocs) openapiMethod.externalDocs = schema.externalDocs;
        if (schema.querystring) resolveCommonParams(opts, "query", parameters, schema.querystring, ref, openapiObject.definitions, securityIgnores.query);
        if (schema.body) {
          openapiMethod.requestBody = { required: true, content: {} };
          resolveBodyParams(opts, openapiMethod.requestBody, schema.body, schema.consumes, ref);
        }
        if (schema.params) resolveCommonParams(opts, "path", parameters, schema.params, ref, openapiObject.definitions);
        if (schema.headers) resolveCommonParams(opts, "header", parameters, schema.headers, ref, openapiObject.definitions, securityIgnores.header);
        if (schema.cookies) resolveCommonParams(opts, "cookie", parameters, schema.cookies, ref, openapiObject.definitions, securityIgnores.cookie);
        if (parameters.length > 0) openapiMethod.parameters = parameters;
        if (schema.deprecated) openapiMethod.deprecated = schema.deprecated;
        if (schema.security) openapiMethod.security = schema.security;
        if (schema.servers) openapiMethod.servers = schema.servers;
        if (schema.callbacks) openapiMethod.callbacks = resolveCallbacks(opts, schema.callbacks, ref);
        for (const key of Object.keys(schema)) {
          if (key.startsWith(CUSTOM_HEADER)) {
            openapiMethod[key] = schema[key];
          }
        }
      }
      if ((!schema || !schema.params) && hasParams(url)) {
        const schemaGenerated = generateParamsSchema(url);
        resolveCommonParams(opts, "path", parameters, schemaGenerated.params, ref, openapiObject.definitions);
        openapiMethod.parameters = parameters;
      }
      openapiMethod.responses = resolveResponse(opts, schema ? schema.response : null, schema ? schema.produces : null, ref);
      return openapiMethod;
    }
    function isOpenapi30(opts) {
      const version = typeof opts.openapi === "string" ? opts.openapi : "3.0.3";
      return version.startsWith("3.0");
    }
    var annotationKeywords = /* @__PURE__ */ new Set([
      "title",
      "description",
      "default",
      "example",
      "examples",
      "deprecated",
      "readOnly",
      "writeOnly",
      "$comment"
    ]);
    function isAnnotationKeyword(key) {
      return annotationKeywords.has(key) || key.startsWith("x-");
    }
    function toNullSchema(openapiSchema) {
      openapiSchema.type = "object";
      openapiSchema.nullable = true;
      openapiSchema.enum = [null];
      return openapiSchema;
    }
    function isNullSchema(schema) {
      return schema.nullable === true && Array.isArray(schema.enum) && schema.enum.length === 1 && schema.enum[0] === null && Object.keys(schema).every((key) => key === "type" || key === "nullable" || key === "enum" || isAnnotationKeyword(key));
    }
    function canBeMergedInto(openapiSchema, member) {
      return Object.hasOwn(member, "type") && Object.keys(member).every((key) => key === "nullable" || !Object.hasOwn(openapiSchema, key));
    }
    function convertNullTypeToNullable(openapiSchema) {
      const { type } = openapiSchema;
      if (type === "null") {
        toNullSchema(openapiSchema);
      } else if (Array.isArray(type) && type.length > 0) {
        const types = type.filter((t) => t !== "null");
        const hasNull = types.length !== type.length;
        if (types.length === 0) {
          toNullSchema(openapiSchema);
        } else if (types.length === 1) {
          openapiSchema.type = types[0];
          if (hasNull) openapiSchema.nullable = true;
        } else {
          delete openapiSchema.type;
          const typeUnion = types.map((t) => ({ type: t }));
          if (hasNull) typeUnion.push(toNullSchema({}));
          if (Object.hasOwn(openapiSchema, "anyOf")) {
            openapiSchema.allOf = [...openapiSchema.allOf || [], { anyOf: typeUnion }];
          } else {
            openapiSchema.anyOf = typeUnion;
          }
        }
      }
      for (const combinator of ["anyOf", "oneOf"]) {
        const members = openapiSchema[combinator];
        if (!Array.isArray(members)) continue;
        const nonNull = members.filter((m) => !isNullSchema(m));
        if (nonNull.length !== 1 || nonNull.length === members.length) continue;
        if (!canBeMergedInto(openapiSchema, nonNull[0])) continue;
        delete openapiSchema[combinator];
        Object.assign(openapiSchema, nonNull[0]);
        openapiSchema.nullable = true;
      }
      return openapiSchema;
    }
    function convertNullableToNullType(openapiSchema) {
      if (!Object.hasOwn(openapiSchema, "nullable")) return openapiSchema;
      const { nullable, type } = openapiSchema;
      delete openapiSchema.nullable;
      if (nullable !== true || type === void 0) return openapiSchema;
      const types = Array.isArray(type) ? type : [type];
      if (!types.includes("null")) {
        openapiSchema.type = [...types, "null"];
      }
      return openapiSchema;
    }
    function convertJsonSchemaToOpenapi3(opts, jsonSchema) {
      if (typeof jsonSchema !== "object" || jsonSchema === null) {
        return jsonSchema;
      }
      if (Array.isArray(jsonSchema)) {
        return jsonSchema.map((s) => convertJsonSchemaToOpenapi3(opts, s));
      }
      const openapiSchema = { ...jsonSchema };
      if (Object.hasOwn(openapiSchema, "$ref") && Object.keys(openapiSchema).length !== 1) {
        for (const key of Object.keys(openapiSchema).filter((k) => k !== "$ref")) {
          delete openapiSchema[key];
          continue;
        }
      }
      for (const key of Object.keys(openapiSchema)) {
        const value = openapiSchema[key];
        if (key === "$id" || key === "$schema" || key === "definitions") {
          delete openapiSchema[key];
          continue;
        }
        if (key === "$ref") {
          openapiSchema.$ref = value.replace("definitions", "components/schemas");
          continue;
        }
        if (opts.convertConstToEnum && key === "const") {
          openapiSchema.enum = [openapiSchema.const];
          delete openapiSchema.const;
          continue;
        }
        if (key === "contentEncoding") {
          if (value === "binary") {
            openapiSchema.format = "binary";
          } else if (value === "base64") {
            openapiSchema.format = "byte";
          }
          delete openapiSchema.contentEncoding;
          continue;
        }
        if (key === "patternProperties") {
          const propertyJsonSchema = Object.values(openapiSchema.patternProperties)[0];
          const propertyOpenapiSchema = convertJsonSchemaToOpenapi3(opts, propertyJsonSchema);
          openapiSchema.additionalProperties = propertyOpenapiSchema;
          delete openapiSchema.patternProperties;
          continue;
        }
        if (key === "properties") {
          openapiSchema[key] = {};
          for (const propertyName of Object.keys(value)) {
            const propertyJsonSchema = value[propertyName];
            const propertyOpenapiSchema = convertJsonSchemaToOpenapi3(opts, propertyJsonSchema);
            openapiSchema[key][propertyName] = propertyOpenapiSchema;
          }
          continue;
        }
        openapiSchema[key] = convertJsonSchemaToOpenapi3(opts, value);
      }
      if (isOpenapi30(opts)) {
        convertNullTypeToNullable(openapiSchema);
      } else {
        convertNullableToNullType(openapiSchema);
      }
      return openapiSchema;
    }
    function prepareOpenapiSchemas(opts, jsonSchemas, ref, hoisted = /* @__PURE__ */ new Map()) {
      const openapiSchemas = {};
      const externalSchemas = [unknownSchemas(jsonSchemas, ref)];
      for (const schemaName of Object.keys(jsonSchemas)) {
        const jsonSchema = { ...jsonSchemas[schemaName] };
        const resolvedJsonSchema = ref.resolve(jsonSchema, { externalSchemas });
        const hoistedSchemas = hoistDefinitions(schemaName, resolvedJsonSchema, { ...ref.definitions().definitions, ...jsonSchemas }, hoisted);
        for (const [name, schema] of [[schemaName, resolvedJsonSchema], ...hoistedSchemas]) {
          const openapiSchema = convertJsonSchemaToOpenapi3(opts, schema);
          resolveSchemaExamplesRecursive(opts, openapiSchema);
          openapiSchemas[name] = openapiSchema;
        }
      }
      return openapiSchemas;
    }
    var PATH_ITEM_METHODS = /* @__PURE__ */ new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"]);
    function supportsAdditionalOperations(version) {
      const match = /^3\.(\d+)/.exec(version);
      return match !== null && Number(match[1]) >= 2;
    }
    function addOpenapiOperation(openapiRoute, method, openapiMethod, version) {
      const field = method.toLowerCase();
      if (PATH_ITEM_METHODS.has(field) || !supportsAdditionalOperations(version)) {
        openapiRoute[field] = openapiMethod;
        return;
      }
      openapiRoute.additionalOperations = Object.assign({}, openapiRoute.additionalOperations, { [method.toUpperCase()]: openapiMethod });
    }
    module.exports = {
      addOpenapiOperation,
      prepareDefaultOptions,
      prepareOpenapiObject,
      prepareOpenapiMethod,
      prepareOpenapiSchemas,
      resolveServerUrls,
      normalizeUrl
    };
  }
});

// node_modules/@fastify/swagger/lib/spec/openapi/index.js
var require_openapi = __commonJS({
  "node_modules/@fastify/swagger/lib/spec/openapi/index.js"(exports, module) {
    "use strict";
    var yaml = require_dist();
    var { shouldRouteHide } = require_should_route_hide();
    var { rewriteHoistedRefs } = require_definitions();
    var { addOpenapiOperation, prepareDefaultOptions, prepareOpenapiObject, prepareOpenapiMethod, prepareOpenapiSchemas, normalizeUrl, resolveServerUrls } = require_utils3();
    module.exports = function(opts, cache, routes, Ref) {
      let ref;
      const defOpts = prepareDefaultOptions(opts);
      return function(opts2) {
        if (opts2?.yaml) {
          if (cache.string) return cache.string;
        } else {
          if (cache.object) return cache.object;
        }
        const openapiObject = prepareOpenapiObject(defOpts);
        ref = Ref();
        const hoisted = /* @__PURE__ */ new Map();
        openapiObject.components.schemas = prepareOpenapiSchemas(defOpts, {
          ...openapiObject.components.schemas,
          ...ref.definitions().definitions
        }, ref, hoisted);
        const serverUrls = resolveServerUrls(defOpts.servers);
        for (const route of routes) {
          const transformResult = route.config?.swaggerTransform !== void 0 ? route.config.swaggerTransform ? route.config.swaggerTransform({ schema: route.schema, url: route.url, route, openapiObject }) : {} : defOpts.transform ? defOpts.transform({ schema: route.schema, url: route.url, route, openapiObject }) : {};
          const schema = transformResult.schema || route.schema;
          const shouldRouteHideOpts = {
            hiddenTag: defOpts.hiddenTag,
            hideUntagged: defOpts.hideUntagged
          };
          if (shouldRouteHide(schema, shouldRouteHideOpts)) continue;
          let url = transformResult.url || route.url;
          url = normalizeUrl(url, serverUrls, defOpts.stripBasePath);
          const openapiRoute = Object.assign({}, openapiObject.paths[url]);
          const openapiMethod = prepareOpenapiMethod(defOpts, schema, ref, openapiObject, url);
          if (route.links) {
            for (const statusCode of Object.keys(route.links)) {
              if (!openapiMethod.responses[statusCode]) {
                throw new Error(`missing status code ${statusCode} in route ${route.path}`);
              }
              openapiMethod.responses[statusCode].links = route.links[statusCode];
            }
          }
          const methods = typeof route.method === "string" ? [route.method] : route.method;
          for (const method of methods) {
            addOpenapiOperation(openapiRoute, method, openapiMethod, openapiObject.openapi);
          }
          openapiObject.paths[url] = openapiRoute;
        }
        Object.assign(openapiObject.components.schemas, prepareOpenapiSchemas(defOpts, ref.inlineDefinitions, ref, hoisted));
        rewriteHoistedRefs(openapiObject, "#/components/schemas/", hoisted);
        const transformObjectResult = defOpts.transformObject ? defOpts.transformObject({ openapiObject }) : openapiObject;
        if (opts2?.yaml) {
          cache.string = yaml.stringify(transformObjectResult, { strict: false });
          return cache.string;
        }
        cache.object = transformObjectResult;
        return cache.object;
      };
    };
  }
});

// node_modules/@fastify/swagger/lib/util/resolve-swagger-function.js
var require_resolve_swagger_function = __commonJS({
  "node_modules/@fastify/swagger/lib/util/resolve-swagger-function.js"(exports, module) {
    "use strict";
    function resolveSwaggerFunction(opts, cache, routes, Ref) {
      if (opts.openapi === void 0 || opts.openapi === null) {
        return require_swagger()(opts, cache, routes, Ref);
      } else {
        return require_openapi()(opts, cache, routes, Ref);
      }
    }
    module.exports = {
      resolveSwaggerFunction
    };
  }
});

// node_modules/@fastify/swagger/lib/mode/dynamic.js
var require_dynamic = __commonJS({
  "node_modules/@fastify/swagger/lib/mode/dynamic.js"(exports, module) {
    "use strict";
    var { addHook } = require_add_hook();
    var { resolveSwaggerFunction } = require_resolve_swagger_function();
    module.exports = function(fastify, opts, done) {
      opts = Object.assign({}, {
        exposeRoute: false,
        hiddenTag: "X-HIDDEN",
        hideUntagged: false,
        stripBasePath: true,
        openapi: null,
        swagger: {},
        transform: null,
        transformObject: null,
        decorator: "swagger",
        refResolver: {
          buildLocalReference(json, _baseUri, _fragment, i) {
            if (!json.title && json.$id) {
              json.title = json.$id;
            }
            return `def-${i}`;
          }
        },
        convertConstToEnum: true
      }, opts);
      const { routes, Ref } = addHook(fastify, opts);
      const cache = {
        object: null,
        string: null
      };
      const swagger = resolveSwaggerFunction(opts, cache, routes, Ref);
      fastify.decorate(opts.decorator, swagger);
      done();
    };
  }
});

// node_modules/@fastify/swagger/index.js
var require_swagger2 = __commonJS({
  "node_modules/@fastify/swagger/index.js"(exports, module) {
    var fp = require_fastify_plugin();
    var { formatParamUrl } = require_format_param_url();
    function fastifySwagger(fastify, opts, next) {
      opts.mode = opts.mode || "dynamic";
      switch (opts.mode) {
        case "static": {
          const setup = require_static();
          setup(fastify, opts, next);
          break;
        }
        case "dynamic": {
          const setup = require_dynamic();
          setup(fastify, opts, next);
          break;
        }
        default: {
          return next(new Error("unsupported mode, should be one of ['static', 'dynamic']"));
        }
      }
    }
    module.exports = fp(fastifySwagger, {
      fastify: "5.x",
      name: "@fastify/swagger"
    });
    module.exports.fastifySwagger = fastifySwagger;
    module.exports.default = fastifySwagger;
    module.exports.formatParamUrl = formatParamUrl;
  }
});
export default require_swagger2();
//# sourceMappingURL=swagger-CSRLT3BP.js.map

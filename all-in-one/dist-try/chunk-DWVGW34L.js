import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);
import {
  AuditRecordedSchema,
  MFA_ACR,
  TimestampSchema,
  assertValidAuthSettings,
  enqueueEvent,
  event_subject,
  file_google_protobuf_timestamp,
  file_svc_events_v1_events,
  jwksUriOf,
  loadConfig,
  metricsRegistry,
  openDatabase,
  openEventBus,
  require_prom_client,
  rpcDuration,
  rpcRequests,
  serviceDesc,
  sql
} from "./chunk-465YIRRN.js";
import {
  AuthMode,
  DeadlineExceeded,
  HALT_MEMBERSHIP_CHECK_MS,
  LicenseFeature,
  MEMBERSHIP_CHECK_MS,
  MethodOptions_IdempotencyLevel,
  anyPack,
  base64Decode,
  base64Encode,
  callDeadlineMs,
  callKindOf,
  capability,
  clone,
  create,
  createPolicyLookup,
  enumDesc,
  fileDesc,
  file_google_protobuf_any,
  file_google_protobuf_struct,
  file_svc_api_v1_annotations,
  fromBinary,
  fromJson,
  fromJsonString,
  getOption,
  isFieldSet,
  isMessage,
  license_feature,
  messageDesc,
  protoInt64,
  rules,
  toBinary,
  toJson,
  toJsonString,
  tsEnum,
  wire_upper_case,
  withDeadline
} from "./chunk-WHDG35AA.js";
import {
  __commonJS,
  __export,
  __toESM
} from "./chunk-VRQZRDEA.js";

// node_modules/canonicalize/lib/canonicalize.js
var require_canonicalize = __commonJS({
  "node_modules/canonicalize/lib/canonicalize.js"(exports, module) {
    "use strict";
    module.exports = function serialize(object) {
      if (typeof object === "number" && isNaN(object)) {
        throw new Error("NaN is not allowed");
      }
      if (typeof object === "number" && !isFinite(object)) {
        throw new Error("Infinity is not allowed");
      }
      if (object === null || typeof object !== "object") {
        return JSON.stringify(object);
      }
      if (object.toJSON instanceof Function) {
        return serialize(object.toJSON());
      }
      if (Array.isArray(object)) {
        const values2 = object.reduce((t, cv, ci) => {
          const comma = ci === 0 ? "" : ",";
          const value = cv === void 0 || typeof cv === "symbol" ? null : cv;
          return `${t}${comma}${serialize(value)}`;
        }, "");
        return `[${values2}]`;
      }
      const values = Object.keys(object).sort().reduce((t, cv) => {
        if (object[cv] === void 0 || typeof object[cv] === "symbol") {
          return t;
        }
        const comma = t.length === 0 ? "" : ",";
        return `${t}${comma}${serialize(cv)}:${serialize(object[cv])}`;
      }, "");
      return `{${values}}`;
    };
  }
});

// node_modules/@bufbuild/protobuf/dist/esm/wkt/timestamp.js
function timestampFromDate(date) {
  return timestampFromMs(date.getTime());
}
function timestampDate(timestamp) {
  return new Date(timestampMs(timestamp));
}
function timestampFromMs(timestampMs2) {
  const seconds = Math.floor(timestampMs2 / 1e3);
  return create(TimestampSchema, {
    seconds: protoInt64.parse(seconds),
    nanos: (timestampMs2 - seconds * 1e3) * 1e6
  });
}
function timestampMs(timestamp) {
  return Number(timestamp.seconds) * 1e3 + Math.round(timestamp.nanos / 1e6);
}

// node_modules/@connectrpc/connect/dist/esm/code.js
var Code;
(function(Code2) {
  Code2[Code2["Canceled"] = 1] = "Canceled";
  Code2[Code2["Unknown"] = 2] = "Unknown";
  Code2[Code2["InvalidArgument"] = 3] = "InvalidArgument";
  Code2[Code2["DeadlineExceeded"] = 4] = "DeadlineExceeded";
  Code2[Code2["NotFound"] = 5] = "NotFound";
  Code2[Code2["AlreadyExists"] = 6] = "AlreadyExists";
  Code2[Code2["PermissionDenied"] = 7] = "PermissionDenied";
  Code2[Code2["ResourceExhausted"] = 8] = "ResourceExhausted";
  Code2[Code2["FailedPrecondition"] = 9] = "FailedPrecondition";
  Code2[Code2["Aborted"] = 10] = "Aborted";
  Code2[Code2["OutOfRange"] = 11] = "OutOfRange";
  Code2[Code2["Unimplemented"] = 12] = "Unimplemented";
  Code2[Code2["Internal"] = 13] = "Internal";
  Code2[Code2["Unavailable"] = 14] = "Unavailable";
  Code2[Code2["DataLoss"] = 15] = "DataLoss";
  Code2[Code2["Unauthenticated"] = 16] = "Unauthenticated";
})(Code || (Code = {}));

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/code-string.js
function codeToString(value) {
  const name = Code[value];
  if (typeof name != "string") {
    return value.toString();
  }
  return name[0].toLowerCase() + name.substring(1).replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
}
var stringToCode;
function codeFromString(value) {
  if (!stringToCode) {
    stringToCode = {};
    for (const value2 of Object.values(Code)) {
      if (typeof value2 == "string") {
        continue;
      }
      stringToCode[codeToString(value2)] = value2;
    }
  }
  return stringToCode[value];
}

// node_modules/@connectrpc/connect/dist/esm/connect-error.js
var ConnectError = class _ConnectError extends Error {
  /**
   * Create a new ConnectError.
   * If no code is provided, code "unknown" is used.
   * Outgoing details are only relevant for the server side - a service may
   * raise an error with details, and it is up to the protocol implementation
   * to encode and send the details along with the error.
   */
  constructor(message2, code = Code.Unknown, metadata, outgoingDetails, cause) {
    super(createMessage(message2, code));
    this.name = "ConnectError";
    Object.setPrototypeOf(this, new.target.prototype);
    this.rawMessage = message2;
    this.code = code;
    this.metadata = new Headers(metadata !== null && metadata !== void 0 ? metadata : {});
    this.details = outgoingDetails !== null && outgoingDetails !== void 0 ? outgoingDetails : [];
    this.cause = cause;
  }
  /**
   * Convert any value - typically a caught error into a ConnectError,
   * following these rules:
   * - If the value is already a ConnectError, return it as is.
   * - If the value is an AbortError or TimeoutError from the fetch API, return
   *   the message of the error with code Canceled.
   * - For other Errors, return the error message with code Unknown by default.
   * - For other values, return the values String representation as a message,
   *   with the code Unknown by default.
   * The original value will be used for the "cause" property for the new
   * ConnectError.
   */
  static from(reason, code = Code.Unknown) {
    if (reason instanceof _ConnectError) {
      return reason;
    }
    if (reason instanceof Error) {
      if (reason.name == "AbortError" || reason.name == "TimeoutError") {
        return new _ConnectError(reason.message, Code.Canceled);
      }
      return new _ConnectError(reason.message, code, void 0, void 0, reason);
    }
    return new _ConnectError(String(reason), code, void 0, void 0, reason);
  }
  static [Symbol.hasInstance](v) {
    if (!(v instanceof Error)) {
      return false;
    }
    if (Object.getPrototypeOf(v) === _ConnectError.prototype) {
      return true;
    }
    return v.name === "ConnectError" && "code" in v && typeof v.code === "number" && "metadata" in v && "details" in v && Array.isArray(v.details) && "rawMessage" in v && typeof v.rawMessage == "string" && "cause" in v;
  }
  findDetails(typeOrRegistry) {
    const registry = typeOrRegistry.kind === "message" ? {
      getMessage: (typeName) => typeName === typeOrRegistry.typeName ? typeOrRegistry : void 0
    } : typeOrRegistry;
    const details = [];
    for (const data of this.details) {
      if ("desc" in data) {
        if (registry.getMessage(data.desc.typeName)) {
          details.push(create(data.desc, data.value));
        }
        continue;
      }
      const desc = registry.getMessage(data.type);
      if (desc) {
        try {
          details.push(fromBinary(desc, data.value));
        } catch (_) {
        }
      }
    }
    return details;
  }
};
function createMessage(message2, code) {
  return message2.length ? `[${codeToString(code)}] ${message2}` : `[${codeToString(code)}]`;
}

// node_modules/@connectrpc/connect/dist/esm/http-headers.js
function encodeBinaryHeader(value, desc) {
  let bytes;
  if (desc !== void 0) {
    bytes = toBinary(desc, value);
  } else if (typeof value == "string") {
    bytes = new TextEncoder().encode(value);
  } else {
    bytes = value instanceof Uint8Array ? value : new Uint8Array(value);
  }
  return base64Encode(bytes, "std_raw");
}
function decodeBinaryHeader(value, desc, options) {
  try {
    const bytes = base64Decode(value);
    if (desc) {
      return fromBinary(desc, bytes, options);
    }
    return bytes;
  } catch (e) {
    throw ConnectError.from(e, Code.DataLoss);
  }
}
function appendHeaders(...headers) {
  const h = new Headers();
  for (const e of headers) {
    e.forEach((value, key) => {
      h.append(key, value);
    });
  }
  return h;
}

// node_modules/@connectrpc/connect/dist/esm/any-client.js
function makeAnyClient(service, createMethod) {
  const client = {};
  for (const desc of service.methods) {
    const method = createMethod(desc);
    if (method != null) {
      client[desc.localName] = method;
    }
  }
  return client;
}

// node_modules/@connectrpc/connect/dist/esm/protocol/compression.js
var compressedFlag = 1;
function compressionNegotiate(available, requested, accepted, headerNameAcceptEncoding) {
  let request3 = null;
  let response = null;
  let error2 = void 0;
  if (requested !== null && requested !== "identity") {
    const found = available.find((c) => c.name === requested);
    if (found) {
      request3 = found;
    } else {
      const acceptable = available.map((c) => c.name).join(",");
      error2 = new ConnectError(`unknown compression "${requested}": supported encodings are ${acceptable}`, Code.Unimplemented, {
        [headerNameAcceptEncoding]: acceptable
      });
    }
  }
  if (accepted === null || accepted === "") {
    response = request3;
  } else {
    const acceptNames = accepted.split(",").map((n) => n.trim());
    for (const name of acceptNames) {
      const found = available.find((c) => c.name === name);
      if (found) {
        response = found;
        break;
      }
    }
  }
  return { request: request3, response, error: error2 };
}

// node_modules/@connectrpc/connect/dist/esm/protocol/limit-io.js
var maxReadMaxBytes = 4294967295;
var maxWriteMaxBytes = maxReadMaxBytes;
var defaultCompressMinBytes = 1024;
function validateReadWriteMaxBytes(readMaxBytes, writeMaxBytes, compressMinBytes) {
  writeMaxBytes !== null && writeMaxBytes !== void 0 ? writeMaxBytes : writeMaxBytes = maxWriteMaxBytes;
  readMaxBytes !== null && readMaxBytes !== void 0 ? readMaxBytes : readMaxBytes = maxReadMaxBytes;
  compressMinBytes !== null && compressMinBytes !== void 0 ? compressMinBytes : compressMinBytes = defaultCompressMinBytes;
  if (writeMaxBytes < 1 || writeMaxBytes > maxWriteMaxBytes) {
    throw new ConnectError(`writeMaxBytes ${writeMaxBytes} must be >= 1 and <= ${maxWriteMaxBytes}`, Code.Internal);
  }
  if (readMaxBytes < 1 || readMaxBytes > maxReadMaxBytes) {
    throw new ConnectError(`readMaxBytes ${readMaxBytes} must be >= 1 and <= ${maxReadMaxBytes}`, Code.Internal);
  }
  return {
    readMaxBytes,
    writeMaxBytes,
    compressMinBytes
  };
}
function assertWriteMaxBytes(writeMaxBytes, bytesWritten) {
  if (bytesWritten > writeMaxBytes) {
    throw new ConnectError(`message size ${bytesWritten} is larger than configured writeMaxBytes ${writeMaxBytes}`, Code.ResourceExhausted);
  }
}
function assertReadMaxBytes(readMaxBytes, bytesRead, totalSizeKnown = false) {
  if (bytesRead > readMaxBytes) {
    let message2 = `message size is larger than configured readMaxBytes ${readMaxBytes}`;
    if (totalSizeKnown) {
      message2 = `message size ${bytesRead} is larger than configured readMaxBytes ${readMaxBytes}`;
    }
    throw new ConnectError(message2, Code.ResourceExhausted);
  }
}

// node_modules/@connectrpc/connect/dist/esm/protocol/envelope.js
function createEnvelopeDecoder(readMaxBytes) {
  return new EnvelopeDecoderImpl(readMaxBytes);
}
var EnvelopeDecoderImpl = class {
  constructor(readMaxBytes) {
    this.readMaxBytes = readMaxBytes;
    this.header = new Uint8Array(5);
    this.headerView = new DataView(this.header.buffer);
    this.buf = [];
  }
  get byteLength() {
    return this.buf.reduce((a, b) => a + b.byteLength, 0);
  }
  decode(chunk) {
    this.buf.push(chunk);
    const envs = [];
    for (; ; ) {
      let env = this.pop();
      if (!env) {
        break;
      }
      envs.push(env);
    }
    return envs;
  }
  // consume an enveloped message
  pop() {
    if (!this.env) {
      this.env = this.head();
      if (!this.env) {
        return void 0;
      }
    }
    if (this.cons(this.env.data)) {
      const env = this.env;
      this.env = void 0;
      return env;
    }
    return void 0;
  }
  // consume header
  head() {
    if (!this.cons(this.header)) {
      return void 0;
    }
    const flags = this.headerView.getUint8(0);
    const length = this.headerView.getUint32(1);
    assertReadMaxBytes(this.readMaxBytes, length, true);
    return {
      flags,
      data: new Uint8Array(length)
    };
  }
  // consume from buffer, fill target
  cons(target) {
    const wantLength = target.byteLength;
    if (this.byteLength < wantLength) {
      return false;
    }
    let offset = 0;
    while (offset < wantLength) {
      const chunk = this.buf.shift();
      if (chunk.byteLength > wantLength - offset) {
        target.set(chunk.subarray(0, wantLength - offset), offset);
        this.buf.unshift(chunk.subarray(wantLength - offset));
        offset += wantLength - offset;
      } else {
        target.set(chunk, offset);
        offset += chunk.byteLength;
      }
    }
    return true;
  }
};
async function envelopeCompress(envelope, compression, compressMinBytes) {
  let { flags, data } = envelope;
  if ((flags & compressedFlag) === compressedFlag) {
    throw new ConnectError("invalid envelope, already compressed", Code.Internal);
  }
  if (compression && data.byteLength >= compressMinBytes) {
    data = await compression.compress(data);
    flags = flags | compressedFlag;
  }
  return { data, flags };
}
async function envelopeDecompress(envelope, compression, readMaxBytes) {
  let { flags, data } = envelope;
  if ((flags & compressedFlag) === compressedFlag) {
    if (!compression) {
      throw new ConnectError("received compressed envelope, but do not know how to decompress", Code.Internal);
    }
    data = await compression.decompress(data, readMaxBytes);
    flags = flags ^ compressedFlag;
  }
  return { data, flags };
}
function encodeEnvelope(flags, data) {
  const bytes = new Uint8Array(data.length + 5);
  bytes.set(data, 5);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  v.setUint8(0, flags);
  v.setUint32(1, data.length);
  return bytes;
}

// node_modules/@connectrpc/connect/dist/esm/protocol/async-iterable.js
var __asyncValues = function(o) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var m = o[Symbol.asyncIterator], i;
  return m ? m.call(o) : (o = typeof __values === "function" ? __values(o) : o[Symbol.iterator](), i = {}, verb("next"), verb("throw"), verb("return"), i[Symbol.asyncIterator] = function() {
    return this;
  }, i);
  function verb(n) {
    i[n] = o[n] && function(v) {
      return new Promise(function(resolve, reject) {
        v = o[n](v), settle(resolve, reject, v.done, v.value);
      });
    };
  }
  function settle(resolve, reject, d, v) {
    Promise.resolve(v).then(function(v2) {
      resolve({ value: v2, done: d });
    }, reject);
  }
};
var __await = function(v) {
  return this instanceof __await ? (this.v = v, this) : new __await(v);
};
var __asyncGenerator = function(thisArg, _arguments, generator) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var g = generator.apply(thisArg, _arguments || []), i, q = [];
  return i = Object.create((typeof AsyncIterator === "function" ? AsyncIterator : Object).prototype), verb("next"), verb("throw"), verb("return", awaitReturn), i[Symbol.asyncIterator] = function() {
    return this;
  }, i;
  function awaitReturn(f) {
    return function(v) {
      return Promise.resolve(v).then(f, reject);
    };
  }
  function verb(n, f) {
    if (g[n]) {
      i[n] = function(v) {
        return new Promise(function(a, b) {
          q.push([n, v, a, b]) > 1 || resume(n, v);
        });
      };
      if (f) i[n] = f(i[n]);
    }
  }
  function resume(n, v) {
    try {
      step(g[n](v));
    } catch (e) {
      settle(q[0][3], e);
    }
  }
  function step(r) {
    r.value instanceof __await ? Promise.resolve(r.value.v).then(fulfill, reject) : settle(q[0][2], r);
  }
  function fulfill(value) {
    resume("next", value);
  }
  function reject(value) {
    resume("throw", value);
  }
  function settle(f, v) {
    if (f(v), q.shift(), q.length) resume(q[0][0], q[0][1]);
  }
};
var __asyncDelegator = function(o) {
  var i, p;
  return i = {}, verb("next"), verb("throw", function(e) {
    throw e;
  }), verb("return"), i[Symbol.iterator] = function() {
    return this;
  }, i;
  function verb(n, f) {
    i[n] = o[n] ? function(v) {
      return (p = !p) ? { value: __await(o[n](v)), done: false } : f ? f(v) : v;
    } : f;
  }
};
function pipeTo(source, ...rest) {
  const [transforms, sink, opt] = pickTransformsAndSink(rest);
  let iterable = source;
  let abortable;
  if ((opt === null || opt === void 0 ? void 0 : opt.propagateDownStreamError) === true) {
    iterable = abortable = makeIterableAbortable(iterable);
  }
  iterable = pipe(iterable, ...transforms, { propagateDownStreamError: false });
  return sink(iterable).catch((reason) => {
    if (abortable) {
      return abortable.abort(reason).then(() => Promise.reject(reason));
    }
    return Promise.reject(reason);
  });
}
function pickTransformsAndSink(rest) {
  let opt;
  if (typeof rest[rest.length - 1] != "function") {
    opt = rest.pop();
  }
  const sink = rest.pop();
  return [rest, sink, opt];
}
function sinkAllBytes(readMaxBytes, lengthHint) {
  return async (iterable) => await readAllBytes(iterable, readMaxBytes, lengthHint);
}
function pipe(source, ...rest) {
  return __asyncGenerator(this, arguments, function* pipe_1() {
    var _a2;
    const [transforms, opt] = pickTransforms(rest);
    let abortable;
    const sourceIt = source[Symbol.asyncIterator]();
    const cachedSource = {
      [Symbol.asyncIterator]() {
        return sourceIt;
      }
    };
    let iterable = cachedSource;
    if ((opt === null || opt === void 0 ? void 0 : opt.propagateDownStreamError) === true) {
      iterable = abortable = makeIterableAbortable(iterable);
    }
    for (const t of transforms) {
      iterable = t(iterable);
    }
    const it = iterable[Symbol.asyncIterator]();
    try {
      for (; ; ) {
        const r = yield __await(it.next());
        if (r.done === true) {
          break;
        }
        if (!abortable) {
          yield yield __await(r.value);
          continue;
        }
        try {
          yield yield __await(r.value);
        } catch (e) {
          yield __await(abortable.abort(e));
          throw e;
        }
      }
    } finally {
      if ((opt === null || opt === void 0 ? void 0 : opt.propagateDownStreamError) === true) {
        (_a2 = sourceIt.return) === null || _a2 === void 0 ? void 0 : _a2.call(sourceIt).catch(() => {
        });
      }
    }
  });
}
function pickTransforms(rest) {
  let opt;
  if (typeof rest[rest.length - 1] != "function") {
    opt = rest.pop();
  }
  return [rest, opt];
}
function transformCatchFinally(catchFinally) {
  return function(iterable) {
    return __asyncGenerator(this, arguments, function* () {
      let err;
      const it = iterable[Symbol.asyncIterator]();
      for (; ; ) {
        let r;
        try {
          r = yield __await(it.next());
        } catch (e) {
          err = e;
          break;
        }
        if (r.done === true) {
          break;
        }
        yield yield __await(r.value);
      }
      const caught = yield __await(catchFinally(err));
      if (caught !== void 0) {
        yield yield __await(caught);
      }
    });
  };
}
function transformPrepend(provide) {
  return function(iterable) {
    return __asyncGenerator(this, arguments, function* () {
      var _a2, e_3, _b, _c;
      const prepend = yield __await(provide());
      if (prepend !== void 0) {
        yield yield __await(prepend);
      }
      try {
        for (var _d2 = true, iterable_3 = __asyncValues(iterable), iterable_3_1; iterable_3_1 = yield __await(iterable_3.next()), _a2 = iterable_3_1.done, !_a2; _d2 = true) {
          _c = iterable_3_1.value;
          _d2 = false;
          const chunk = _c;
          yield yield __await(chunk);
        }
      } catch (e_3_1) {
        e_3 = { error: e_3_1 };
      } finally {
        try {
          if (!_d2 && !_a2 && (_b = iterable_3.return)) yield __await(_b.call(iterable_3));
        } finally {
          if (e_3) throw e_3.error;
        }
      }
    });
  };
}
function transformSerializeEnvelope(serialization, endStreamFlag2, endSerialization) {
  if (endStreamFlag2 === void 0 || endSerialization === void 0) {
    return function(iterable) {
      return __asyncGenerator(this, arguments, function* () {
        var _a2, e_4, _b, _c;
        try {
          for (var _d2 = true, iterable_4 = __asyncValues(iterable), iterable_4_1; iterable_4_1 = yield __await(iterable_4.next()), _a2 = iterable_4_1.done, !_a2; _d2 = true) {
            _c = iterable_4_1.value;
            _d2 = false;
            const chunk = _c;
            const data = serialization.serialize(chunk);
            yield yield __await({ flags: 0, data });
          }
        } catch (e_4_1) {
          e_4 = { error: e_4_1 };
        } finally {
          try {
            if (!_d2 && !_a2 && (_b = iterable_4.return)) yield __await(_b.call(iterable_4));
          } finally {
            if (e_4) throw e_4.error;
          }
        }
      });
    };
  }
  return function(iterable) {
    return __asyncGenerator(this, arguments, function* () {
      var _a2, e_5, _b, _c;
      try {
        for (var _d2 = true, iterable_5 = __asyncValues(iterable), iterable_5_1; iterable_5_1 = yield __await(iterable_5.next()), _a2 = iterable_5_1.done, !_a2; _d2 = true) {
          _c = iterable_5_1.value;
          _d2 = false;
          const chunk = _c;
          let data;
          let flags = 0;
          if (chunk.end) {
            flags = flags | endStreamFlag2;
            data = endSerialization.serialize(chunk.value);
          } else {
            data = serialization.serialize(chunk.value);
          }
          yield yield __await({ flags, data });
        }
      } catch (e_5_1) {
        e_5 = { error: e_5_1 };
      } finally {
        try {
          if (!_d2 && !_a2 && (_b = iterable_5.return)) yield __await(_b.call(iterable_5));
        } finally {
          if (e_5) throw e_5.error;
        }
      }
    });
  };
}
function transformParseEnvelope(serialization, endStreamFlag2, endSerialization) {
  if (endSerialization && endStreamFlag2 !== void 0) {
    return function(iterable) {
      return __asyncGenerator(this, arguments, function* () {
        var _a2, e_6, _b, _c;
        try {
          for (var _d2 = true, iterable_6 = __asyncValues(iterable), iterable_6_1; iterable_6_1 = yield __await(iterable_6.next()), _a2 = iterable_6_1.done, !_a2; _d2 = true) {
            _c = iterable_6_1.value;
            _d2 = false;
            const { flags, data } = _c;
            if ((flags & endStreamFlag2) === endStreamFlag2) {
              yield yield __await({ value: endSerialization.parse(data), end: true });
            } else {
              yield yield __await({ value: serialization.parse(data), end: false });
            }
          }
        } catch (e_6_1) {
          e_6 = { error: e_6_1 };
        } finally {
          try {
            if (!_d2 && !_a2 && (_b = iterable_6.return)) yield __await(_b.call(iterable_6));
          } finally {
            if (e_6) throw e_6.error;
          }
        }
      });
    };
  }
  return function(iterable) {
    return __asyncGenerator(this, arguments, function* () {
      var _a2, e_7, _b, _c;
      try {
        for (var _d2 = true, iterable_7 = __asyncValues(iterable), iterable_7_1; iterable_7_1 = yield __await(iterable_7.next()), _a2 = iterable_7_1.done, !_a2; _d2 = true) {
          _c = iterable_7_1.value;
          _d2 = false;
          const { flags, data } = _c;
          if (endStreamFlag2 !== void 0 && (flags & endStreamFlag2) === endStreamFlag2) {
            if (endSerialization === null) {
              throw new ConnectError("unexpected end flag", Code.InvalidArgument);
            }
            continue;
          }
          yield yield __await(serialization.parse(data));
        }
      } catch (e_7_1) {
        e_7 = { error: e_7_1 };
      } finally {
        try {
          if (!_d2 && !_a2 && (_b = iterable_7.return)) yield __await(_b.call(iterable_7));
        } finally {
          if (e_7) throw e_7.error;
        }
      }
    });
  };
}
function transformCompressEnvelope(compression, compressMinBytes) {
  return function(iterable) {
    return __asyncGenerator(this, arguments, function* () {
      var _a2, e_8, _b, _c;
      try {
        for (var _d2 = true, iterable_8 = __asyncValues(iterable), iterable_8_1; iterable_8_1 = yield __await(iterable_8.next()), _a2 = iterable_8_1.done, !_a2; _d2 = true) {
          _c = iterable_8_1.value;
          _d2 = false;
          const env = _c;
          yield yield __await(yield __await(envelopeCompress(env, compression, compressMinBytes)));
        }
      } catch (e_8_1) {
        e_8 = { error: e_8_1 };
      } finally {
        try {
          if (!_d2 && !_a2 && (_b = iterable_8.return)) yield __await(_b.call(iterable_8));
        } finally {
          if (e_8) throw e_8.error;
        }
      }
    });
  };
}
function transformDecompressEnvelope(compression, readMaxBytes) {
  return function(iterable) {
    return __asyncGenerator(this, arguments, function* () {
      var _a2, e_9, _b, _c;
      try {
        for (var _d2 = true, iterable_9 = __asyncValues(iterable), iterable_9_1; iterable_9_1 = yield __await(iterable_9.next()), _a2 = iterable_9_1.done, !_a2; _d2 = true) {
          _c = iterable_9_1.value;
          _d2 = false;
          const env = _c;
          yield yield __await(yield __await(envelopeDecompress(env, compression, readMaxBytes)));
        }
      } catch (e_9_1) {
        e_9 = { error: e_9_1 };
      } finally {
        try {
          if (!_d2 && !_a2 && (_b = iterable_9.return)) yield __await(_b.call(iterable_9));
        } finally {
          if (e_9) throw e_9.error;
        }
      }
    });
  };
}
function transformJoinEnvelopes() {
  return function(iterable) {
    return __asyncGenerator(this, arguments, function* () {
      var _a2, e_10, _b, _c;
      try {
        for (var _d2 = true, iterable_10 = __asyncValues(iterable), iterable_10_1; iterable_10_1 = yield __await(iterable_10.next()), _a2 = iterable_10_1.done, !_a2; _d2 = true) {
          _c = iterable_10_1.value;
          _d2 = false;
          const { flags, data } = _c;
          yield yield __await(encodeEnvelope(flags, data));
        }
      } catch (e_10_1) {
        e_10 = { error: e_10_1 };
      } finally {
        try {
          if (!_d2 && !_a2 && (_b = iterable_10.return)) yield __await(_b.call(iterable_10));
        } finally {
          if (e_10) throw e_10.error;
        }
      }
    });
  };
}
function transformSplitEnvelope(readMaxBytes) {
  return function(iterable) {
    return __asyncGenerator(this, arguments, function* () {
      var _a2, e_11, _b, _c;
      const buffer = createEnvelopeDecoder(readMaxBytes);
      try {
        for (var _d2 = true, iterable_11 = __asyncValues(iterable), iterable_11_1; iterable_11_1 = yield __await(iterable_11.next()), _a2 = iterable_11_1.done, !_a2; _d2 = true) {
          _c = iterable_11_1.value;
          _d2 = false;
          const chunk = _c;
          for (const env of buffer.decode(chunk)) {
            yield yield __await(env);
          }
        }
      } catch (e_11_1) {
        e_11 = { error: e_11_1 };
      } finally {
        try {
          if (!_d2 && !_a2 && (_b = iterable_11.return)) yield __await(_b.call(iterable_11));
        } finally {
          if (e_11) throw e_11.error;
        }
      }
      if (buffer.byteLength > 0) {
        throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
      }
    });
  };
}
async function readAllBytes(iterable, readMaxBytes, lengthHint) {
  var _a2, e_12, _b, _c, _d2, e_13, _e, _f;
  const [ok, hint] = parseLengthHint(lengthHint);
  if (ok) {
    if (hint > readMaxBytes) {
      assertReadMaxBytes(readMaxBytes, hint, true);
    }
    const buffer = new Uint8Array(hint);
    let offset2 = 0;
    try {
      for (var _g = true, iterable_12 = __asyncValues(iterable), iterable_12_1; iterable_12_1 = await iterable_12.next(), _a2 = iterable_12_1.done, !_a2; _g = true) {
        _c = iterable_12_1.value;
        _g = false;
        const chunk = _c;
        if (offset2 + chunk.byteLength > hint) {
          throw new ConnectError(`protocol error: promised ${hint} bytes, received ${offset2 + chunk.byteLength}`, Code.InvalidArgument);
        }
        buffer.set(chunk, offset2);
        offset2 += chunk.byteLength;
      }
    } catch (e_12_1) {
      e_12 = { error: e_12_1 };
    } finally {
      try {
        if (!_g && !_a2 && (_b = iterable_12.return)) await _b.call(iterable_12);
      } finally {
        if (e_12) throw e_12.error;
      }
    }
    if (offset2 < hint) {
      throw new ConnectError(`protocol error: promised ${hint} bytes, received ${offset2}`, Code.InvalidArgument);
    }
    return buffer;
  }
  const chunks = [];
  let count = 0;
  try {
    for (var _h = true, iterable_13 = __asyncValues(iterable), iterable_13_1; iterable_13_1 = await iterable_13.next(), _d2 = iterable_13_1.done, !_d2; _h = true) {
      _f = iterable_13_1.value;
      _h = false;
      const chunk = _f;
      count += chunk.byteLength;
      assertReadMaxBytes(readMaxBytes, count);
      chunks.push(chunk);
    }
  } catch (e_13_1) {
    e_13 = { error: e_13_1 };
  } finally {
    try {
      if (!_h && !_d2 && (_e = iterable_13.return)) await _e.call(iterable_13);
    } finally {
      if (e_13) throw e_13.error;
    }
  }
  const all = new Uint8Array(count);
  let offset = 0;
  for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}
function parseLengthHint(lengthHint) {
  if (lengthHint === void 0 || lengthHint === null) {
    return [false, 0];
  }
  const n = typeof lengthHint == "string" ? parseInt(lengthHint, 10) : lengthHint;
  if (!Number.isSafeInteger(n) || n < 0) {
    return [false, n];
  }
  return [true, n];
}
async function untilFirst(iterable) {
  const it = iterable[Symbol.asyncIterator]();
  let first = await it.next();
  return {
    [Symbol.asyncIterator]() {
      const w = {
        async next() {
          if (first !== null) {
            const n = first;
            first = null;
            return n;
          }
          return await it.next();
        }
      };
      if (it.throw !== void 0) {
        w.throw = (e) => it.throw(e);
      }
      if (it.return !== void 0) {
        w.return = (value) => it.return(value);
      }
      return w;
    }
  };
}
function makeIterableAbortable(iterable) {
  const innerCandidate = iterable[Symbol.asyncIterator]();
  if (innerCandidate.throw === void 0) {
    throw new Error("AsyncIterable does not implement throw");
  }
  const inner = innerCandidate;
  let aborted;
  let resultPromise;
  let it = {
    next() {
      resultPromise = inner.next().finally(() => {
        resultPromise = void 0;
      });
      return resultPromise;
    },
    throw(e) {
      return inner.throw(e);
    }
  };
  if (innerCandidate.return !== void 0) {
    it = Object.assign(Object.assign({}, it), { return(value) {
      return inner.return(value);
    } });
  }
  let used = false;
  return {
    abort(reason) {
      if (aborted) {
        return aborted.state;
      }
      const f = () => {
        return inner.throw(reason).then((r) => r.done === true ? "completed" : "caught", () => "rethrown");
      };
      if (resultPromise) {
        aborted = { reason, state: resultPromise.then(f, f) };
        return aborted.state;
      }
      aborted = { reason, state: f() };
      return aborted.state;
    },
    [Symbol.asyncIterator]() {
      if (used) {
        throw new Error("AsyncIterable cannot be re-used");
      }
      used = true;
      return it;
    }
  };
}
function createAsyncIterable(items) {
  return __asyncGenerator(this, arguments, function* createAsyncIterable_1() {
    yield __await(yield* __asyncDelegator(__asyncValues(items)));
  });
}

// node_modules/@connectrpc/connect/dist/esm/promise-client.js
var __asyncValues2 = function(o) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var m = o[Symbol.asyncIterator], i;
  return m ? m.call(o) : (o = typeof __values === "function" ? __values(o) : o[Symbol.iterator](), i = {}, verb("next"), verb("throw"), verb("return"), i[Symbol.asyncIterator] = function() {
    return this;
  }, i);
  function verb(n) {
    i[n] = o[n] && function(v) {
      return new Promise(function(resolve, reject) {
        v = o[n](v), settle(resolve, reject, v.done, v.value);
      });
    };
  }
  function settle(resolve, reject, d, v) {
    Promise.resolve(v).then(function(v2) {
      resolve({ value: v2, done: d });
    }, reject);
  }
};
var __await2 = function(v) {
  return this instanceof __await2 ? (this.v = v, this) : new __await2(v);
};
var __asyncDelegator2 = function(o) {
  var i, p;
  return i = {}, verb("next"), verb("throw", function(e) {
    throw e;
  }), verb("return"), i[Symbol.iterator] = function() {
    return this;
  }, i;
  function verb(n, f) {
    i[n] = o[n] ? function(v) {
      return (p = !p) ? { value: __await2(o[n](v)), done: false } : f ? f(v) : v;
    } : f;
  }
};
var __asyncGenerator2 = function(thisArg, _arguments, generator) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var g = generator.apply(thisArg, _arguments || []), i, q = [];
  return i = Object.create((typeof AsyncIterator === "function" ? AsyncIterator : Object).prototype), verb("next"), verb("throw"), verb("return", awaitReturn), i[Symbol.asyncIterator] = function() {
    return this;
  }, i;
  function awaitReturn(f) {
    return function(v) {
      return Promise.resolve(v).then(f, reject);
    };
  }
  function verb(n, f) {
    if (g[n]) {
      i[n] = function(v) {
        return new Promise(function(a, b) {
          q.push([n, v, a, b]) > 1 || resume(n, v);
        });
      };
      if (f) i[n] = f(i[n]);
    }
  }
  function resume(n, v) {
    try {
      step(g[n](v));
    } catch (e) {
      settle(q[0][3], e);
    }
  }
  function step(r) {
    r.value instanceof __await2 ? Promise.resolve(r.value.v).then(fulfill, reject) : settle(q[0][2], r);
  }
  function fulfill(value) {
    resume("next", value);
  }
  function reject(value) {
    resume("throw", value);
  }
  function settle(f, v) {
    if (f(v), q.shift(), q.length) resume(q[0][0], q[0][1]);
  }
};
function createClient(service, transport) {
  return makeAnyClient(service, (method) => {
    switch (method.methodKind) {
      case "unary":
        return createUnaryFn(transport, method);
      case "server_streaming":
        return createServerStreamingFn(transport, method);
      case "client_streaming":
        return createClientStreamingFn(transport, method);
      case "bidi_streaming":
        return createBiDiStreamingFn(transport, method);
      default:
        return null;
    }
  });
}
function createUnaryFn(transport, method) {
  return async (input, options) => {
    var _a2, _b;
    const response = await transport.unary(method, options === null || options === void 0 ? void 0 : options.signal, options === null || options === void 0 ? void 0 : options.timeoutMs, options === null || options === void 0 ? void 0 : options.headers, input, options === null || options === void 0 ? void 0 : options.contextValues);
    (_a2 = options === null || options === void 0 ? void 0 : options.onHeader) === null || _a2 === void 0 ? void 0 : _a2.call(options, response.header);
    (_b = options === null || options === void 0 ? void 0 : options.onTrailer) === null || _b === void 0 ? void 0 : _b.call(options, response.trailer);
    return response.message;
  };
}
function createServerStreamingFn(transport, method) {
  return (input, options) => handleStreamResponse(transport.stream(method, options === null || options === void 0 ? void 0 : options.signal, options === null || options === void 0 ? void 0 : options.timeoutMs, options === null || options === void 0 ? void 0 : options.headers, createAsyncIterable([input]), options === null || options === void 0 ? void 0 : options.contextValues), options);
}
function createClientStreamingFn(transport, method) {
  return async (request3, options) => {
    var _a2, e_1, _b, _c;
    var _d2, _e;
    const response = await transport.stream(method, options === null || options === void 0 ? void 0 : options.signal, options === null || options === void 0 ? void 0 : options.timeoutMs, options === null || options === void 0 ? void 0 : options.headers, request3, options === null || options === void 0 ? void 0 : options.contextValues);
    (_d2 = options === null || options === void 0 ? void 0 : options.onHeader) === null || _d2 === void 0 ? void 0 : _d2.call(options, response.header);
    let singleMessage;
    let count = 0;
    try {
      for (var _f = true, _g = __asyncValues2(response.message), _h; _h = await _g.next(), _a2 = _h.done, !_a2; _f = true) {
        _c = _h.value;
        _f = false;
        const message2 = _c;
        singleMessage = message2;
        count++;
      }
    } catch (e_1_1) {
      e_1 = { error: e_1_1 };
    } finally {
      try {
        if (!_f && !_a2 && (_b = _g.return)) await _b.call(_g);
      } finally {
        if (e_1) throw e_1.error;
      }
    }
    if (!singleMessage) {
      throw new ConnectError("protocol error: missing response message", Code.Unimplemented);
    }
    if (count > 1) {
      throw new ConnectError("protocol error: received extra messages for client streaming method", Code.Unimplemented);
    }
    (_e = options === null || options === void 0 ? void 0 : options.onTrailer) === null || _e === void 0 ? void 0 : _e.call(options, response.trailer);
    return singleMessage;
  };
}
function createBiDiStreamingFn(transport, method) {
  return (request3, options) => handleStreamResponse(transport.stream(method, options === null || options === void 0 ? void 0 : options.signal, options === null || options === void 0 ? void 0 : options.timeoutMs, options === null || options === void 0 ? void 0 : options.headers, request3, options === null || options === void 0 ? void 0 : options.contextValues), options);
}
function handleStreamResponse(stream, options) {
  const it = (function() {
    return __asyncGenerator2(this, arguments, function* () {
      var _a2, _b;
      const response = yield __await2(stream);
      (_a2 = options === null || options === void 0 ? void 0 : options.onHeader) === null || _a2 === void 0 ? void 0 : _a2.call(options, response.header);
      yield __await2(yield* __asyncDelegator2(__asyncValues2(response.message)));
      (_b = options === null || options === void 0 ? void 0 : options.onTrailer) === null || _b === void 0 ? void 0 : _b.call(options, response.trailer);
    });
  })()[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => it.next()
    })
  };
}

// node_modules/@connectrpc/connect/dist/esm/protocol/signals.js
function createLinkedAbortController(...signals) {
  const controller = new AbortController();
  const sa = signals.filter((s) => s !== void 0).concat(controller.signal);
  for (const signal of sa) {
    if (signal.aborted) {
      onAbort.apply(signal);
      break;
    }
    signal.addEventListener("abort", onAbort);
  }
  function onAbort() {
    if (!controller.signal.aborted) {
      controller.abort(getAbortSignalReason(this));
    }
    for (const signal of sa) {
      signal.removeEventListener("abort", onAbort);
    }
  }
  return controller;
}
function createDeadlineSignal(timeoutMs) {
  const controller = new AbortController();
  const listener = () => {
    controller.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded));
  };
  let timeoutId;
  if (timeoutMs !== void 0) {
    if (timeoutMs <= 0)
      listener();
    else
      timeoutId = setTimeout(listener, timeoutMs);
  }
  return {
    signal: controller.signal,
    cleanup: () => clearTimeout(timeoutId)
  };
}
function getAbortSignalReason(signal) {
  if (!signal.aborted) {
    return void 0;
  }
  if (signal.reason !== void 0) {
    return signal.reason;
  }
  const e = new Error("This operation was aborted");
  e.name = "AbortError";
  return e;
}

// node_modules/@connectrpc/connect/dist/esm/context-values.js
function createContextValues() {
  return {
    get(key) {
      return key.id in this ? this[key.id] : key.defaultValue;
    },
    set(key, value) {
      this[key.id] = value;
      return this;
    },
    delete(key) {
      delete this[key.id];
      return this;
    }
  };
}
function createContextKey(defaultValue, options) {
  return { id: Symbol(options === null || options === void 0 ? void 0 : options.description), defaultValue };
}

// node_modules/@connectrpc/connect/dist/esm/implementation.js
function createHandlerContext(init) {
  var _a2;
  let timeoutMs;
  if (init.timeoutMs !== void 0) {
    const date = new Date(Date.now() + init.timeoutMs);
    timeoutMs = () => date.getTime() - Date.now();
  } else {
    timeoutMs = () => void 0;
  }
  const deadline2 = createDeadlineSignal(init.timeoutMs);
  const abortController = createLinkedAbortController(deadline2.signal, init.requestSignal, init.shutdownSignal);
  return Object.assign(Object.assign({}, init), { signal: abortController.signal, timeoutMs, requestHeader: new Headers(init.requestHeader), responseHeader: new Headers(init.responseHeader), responseTrailer: new Headers(init.responseTrailer), abort(reason) {
    deadline2.cleanup();
    abortController.abort(reason);
  }, values: (_a2 = init.contextValues) !== null && _a2 !== void 0 ? _a2 : createContextValues() });
}
function createMethodImplSpec(method, impl) {
  return {
    kind: method.methodKind,
    method,
    impl
  };
}
function createServiceImplSpec(service, impl) {
  const s = { service, methods: {} };
  for (const method of service.methods) {
    let fn = impl[method.localName];
    if (typeof fn == "function") {
      fn = fn.bind(impl);
    } else {
      const message2 = `${service.typeName}.${method.name} is not implemented`;
      fn = function unimplemented() {
        throw new ConnectError(message2, Code.Unimplemented);
      };
    }
    s.methods[method.localName] = createMethodImplSpec(method, fn);
  }
  return s;
}

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc-web/trailer.js
var trailerFlag = 128;
function trailerParse(data) {
  const headers = new Headers();
  const lines = new TextDecoder().decode(data).split("\r\n");
  for (const line of lines) {
    if (line === "") {
      continue;
    }
    const i = line.indexOf(":");
    if (i > 0) {
      const name = line.substring(0, i).trim();
      const value = line.substring(i + 1).trim();
      headers.append(name, value);
    }
  }
  return headers;
}
function trailerSerialize(trailer) {
  const lines = [];
  trailer.forEach((value, key) => {
    lines.push(`${key}: ${value}\r
`);
  });
  return new TextEncoder().encode(lines.join(""));
}
function createTrailerSerialization() {
  return {
    serialize: trailerSerialize,
    parse: trailerParse
  };
}

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc/headers.js
var headerContentType = "Content-Type";
var headerEncoding = "Grpc-Encoding";
var headerAcceptEncoding = "Grpc-Accept-Encoding";
var headerTimeout = "Grpc-Timeout";
var headerGrpcStatus = "Grpc-Status";
var headerGrpcMessage = "Grpc-Message";
var headerStatusDetailsBin = "Grpc-Status-Details-Bin";
var headerUserAgent = "User-Agent";

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc-web/content-type.js
var contentTypeRegExp = /^application\/grpc-web(-text)?(?:\+(?:(json)(?:; ?charset=utf-?8)?|proto))?$/i;
var contentTypeProto = "application/grpc-web+proto";
var contentTypeJson = "application/grpc-web+json";
function parseContentType(contentType) {
  const match = contentType === null || contentType === void 0 ? void 0 : contentType.match(contentTypeRegExp);
  if (!match) {
    return void 0;
  }
  const text = !!match[1];
  const binary = !match[2];
  return { text, binary };
}

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc/parse-timeout.js
function parseTimeout(value, maxTimeoutMs) {
  if (value === null) {
    return {};
  }
  const results = /^(\d{1,8})([HMSmun])$/.exec(value);
  if (results === null) {
    return {
      error: new ConnectError(`protocol error: invalid grpc timeout value: ${value}`, Code.InvalidArgument)
    };
  }
  const unitToMultiplicand = {
    H: 60 * 60 * 1e3,
    // hour
    M: 60 * 1e3,
    // minute
    S: 1e3,
    // second
    m: 1,
    // millisecond
    u: 1e-3,
    // microsecond
    n: 1e-6
    // nanosecond
  };
  const timeoutMs = unitToMultiplicand[results[2]] * parseInt(results[1]);
  if (timeoutMs > maxTimeoutMs) {
    return {
      timeoutMs,
      error: new ConnectError(`timeout ${timeoutMs}ms must be <= ${maxTimeoutMs}`, Code.InvalidArgument)
    };
  }
  return {
    timeoutMs
  };
}

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc/gen/status_pb.js
var file_status = /* @__PURE__ */ fileDesc("CgxzdGF0dXMucHJvdG8SCmdvb2dsZS5ycGMiTgoGU3RhdHVzEgwKBGNvZGUYASABKAUSDwoHbWVzc2FnZRgCIAEoCRIlCgdkZXRhaWxzGAMgAygLMhQuZ29vZ2xlLnByb3RvYnVmLkFueUJeCg5jb20uZ29vZ2xlLnJwY0ILU3RhdHVzUHJvdG9QAVo3Z29vZ2xlLmdvbGFuZy5vcmcvZ2VucHJvdG8vZ29vZ2xlYXBpcy9ycGMvc3RhdHVzO3N0YXR1c6ICA1JQQ2IGcHJvdG8z", [file_google_protobuf_any]);
var StatusSchema = /* @__PURE__ */ messageDesc(file_status, 0);

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc/trailer-status.js
var grpcStatusOk = "0";
function setTrailerStatus(target, error2) {
  if (error2) {
    error2.metadata.forEach((value, key) => {
      target.append(key, value);
    });
    target.set(headerGrpcStatus, error2.code.toString(10));
    target.set(headerGrpcMessage, encodeURIComponent(error2.rawMessage));
    if (error2.details.length > 0) {
      const status = create(StatusSchema, {
        code: error2.code,
        message: error2.rawMessage,
        details: error2.details.map((detail) => "desc" in detail ? anyPack(detail.desc, create(detail.desc, detail.value)) : {
          typeUrl: `type.googleapis.com/${detail.type}`,
          value: detail.value
        })
      });
      target.set(headerStatusDetailsBin, encodeBinaryHeader(status, StatusSchema));
    }
  } else {
    target.set(headerGrpcStatus, grpcStatusOk.toString());
  }
  return target;
}
function findTrailerError(headerOrTrailer) {
  var _a2;
  const statusBytes = headerOrTrailer.get(headerStatusDetailsBin);
  if (statusBytes != null) {
    const status = decodeBinaryHeader(statusBytes, StatusSchema);
    if (status.code == 0) {
      return void 0;
    }
    const error2 = new ConnectError(status.message, status.code, headerOrTrailer);
    error2.details = status.details.map((any) => ({
      type: any.typeUrl.substring(any.typeUrl.lastIndexOf("/") + 1),
      value: any.value
    }));
    return error2;
  }
  const grpcStatus = headerOrTrailer.get(headerGrpcStatus);
  if (grpcStatus != null) {
    if (grpcStatus === grpcStatusOk) {
      return void 0;
    }
    const code = parseInt(grpcStatus, 10);
    if (code in Code) {
      return new ConnectError(decodeURIComponent((_a2 = headerOrTrailer.get(headerGrpcMessage)) !== null && _a2 !== void 0 ? _a2 : ""), code, headerOrTrailer);
    }
    return new ConnectError(`invalid grpc-status: ${grpcStatus}`, Code.Internal, headerOrTrailer);
  }
  return void 0;
}

// node_modules/@connectrpc/connect/dist/esm/protocol/content-type-matcher.js
var contentTypeMatcherCacheSize = 1024;
function contentTypeMatcher(...supported) {
  const cache2 = /* @__PURE__ */ new Map();
  const source = supported.reduce((previousValue, currentValue) => previousValue.concat("supported" in currentValue ? currentValue.supported : currentValue), []);
  function match(contentType) {
    if (contentType === null || contentType.length == 0) {
      return false;
    }
    const cached = cache2.get(contentType);
    if (cached !== void 0) {
      return cached;
    }
    const ok = source.some((re) => re.test(contentType));
    if (cache2.size < contentTypeMatcherCacheSize) {
      cache2.set(contentType, ok);
    }
    return ok;
  }
  match.supported = source;
  return match;
}

// node_modules/@connectrpc/connect/dist/esm/protocol/create-method-url.js
function createMethodUrl(baseUrl, method) {
  return baseUrl.toString().replace(/\/?$/, `/${method.parent.typeName}/${method.name}`);
}

// node_modules/@connectrpc/connect/dist/esm/protocol/normalize.js
function normalize(desc, message2) {
  return create(desc, message2);
}
function normalizeIterable(desc, input) {
  function transform(result) {
    if (result.done === true) {
      return result;
    }
    return {
      done: result.done,
      value: normalize(desc, result.value)
    };
  }
  return {
    [Symbol.asyncIterator]() {
      const it = input[Symbol.asyncIterator]();
      const res = {
        next: () => it.next().then(transform)
      };
      if (it.throw !== void 0) {
        res.throw = (e) => it.throw(e).then(transform);
      }
      if (it.return !== void 0) {
        res.return = (v) => it.return(v).then(transform);
      }
      return res;
    }
  };
}

// node_modules/@connectrpc/connect/dist/esm/interceptor.js
function applyInterceptors(next, interceptors) {
  if (!interceptors) {
    return next;
  }
  for (const i of interceptors.concat().reverse()) {
    next = i(next);
  }
  return next;
}

// node_modules/@connectrpc/connect/dist/esm/protocol/invoke-implementation.js
var __await3 = function(v) {
  return this instanceof __await3 ? (this.v = v, this) : new __await3(v);
};
var __asyncGenerator3 = function(thisArg, _arguments, generator) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var g = generator.apply(thisArg, _arguments || []), i, q = [];
  return i = Object.create((typeof AsyncIterator === "function" ? AsyncIterator : Object).prototype), verb("next"), verb("throw"), verb("return", awaitReturn), i[Symbol.asyncIterator] = function() {
    return this;
  }, i;
  function awaitReturn(f) {
    return function(v) {
      return Promise.resolve(v).then(f, reject);
    };
  }
  function verb(n, f) {
    if (g[n]) {
      i[n] = function(v) {
        return new Promise(function(a, b) {
          q.push([n, v, a, b]) > 1 || resume(n, v);
        });
      };
      if (f) i[n] = f(i[n]);
    }
  }
  function resume(n, v) {
    try {
      step(g[n](v));
    } catch (e) {
      settle(q[0][3], e);
    }
  }
  function step(r) {
    r.value instanceof __await3 ? Promise.resolve(r.value.v).then(fulfill, reject) : settle(q[0][2], r);
  }
  function fulfill(value) {
    resume("next", value);
  }
  function reject(value) {
    resume("throw", value);
  }
  function settle(f, v) {
    if (f(v), q.shift(), q.length) resume(q[0][0], q[0][1]);
  }
};
var __asyncValues3 = function(o) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var m = o[Symbol.asyncIterator], i;
  return m ? m.call(o) : (o = typeof __values === "function" ? __values(o) : o[Symbol.iterator](), i = {}, verb("next"), verb("throw"), verb("return"), i[Symbol.asyncIterator] = function() {
    return this;
  }, i);
  function verb(n) {
    i[n] = o[n] && function(v) {
      return new Promise(function(resolve, reject) {
        v = o[n](v), settle(resolve, reject, v.done, v.value);
      });
    };
  }
  function settle(resolve, reject, d, v) {
    Promise.resolve(v).then(function(v2) {
      resolve({ value: v2, done: d });
    }, reject);
  }
};
var __asyncDelegator3 = function(o) {
  var i, p;
  return i = {}, verb("next"), verb("throw", function(e) {
    throw e;
  }), verb("return"), i[Symbol.iterator] = function() {
    return this;
  }, i;
  function verb(n, f) {
    i[n] = o[n] ? function(v) {
      return (p = !p) ? { value: __await3(o[n](v)), done: false } : f ? f(v) : v;
    } : f;
  }
};
async function invokeUnaryImplementation(spec, context3, input, interceptors) {
  const anyFn = async (req) => {
    return Object.assign({ message: normalize(spec.method.output, await spec.impl(req.message, mergeRequest(context3, req))), stream: false, method: spec.method }, responseCommon(context3, spec));
  };
  const next = applyInterceptors(anyFn, interceptors);
  const { message: message2, header, trailer } = await next(Object.assign({ stream: false, message: input, method: spec.method }, requestCommon(context3, spec)));
  copyHeaders(header, context3.responseHeader);
  copyHeaders(trailer, context3.responseTrailer);
  return message2;
}
function transformInvokeImplementation(spec, context3, interceptors) {
  switch (spec.kind) {
    case "unary":
      return function unary(input) {
        return __asyncGenerator3(this, arguments, function* unary_1() {
          yield yield __await3(yield __await3(invokeUnaryImplementation(spec, context3, yield __await3(ensureSingle(input, "unary")), interceptors)));
        });
      };
    case "server_streaming": {
      return function serverStreaming(input) {
        return invokeStreamImplementation(spec, context3, input, interceptors, async (req) => {
          const output = normalizeIterable(spec.method.output, spec.impl(await ensureSingle(req.message, "server-streaming"), mergeRequest(context3, req)));
          return Object.assign({ stream: true, message: output, method: spec.method }, responseCommon(context3, spec));
        });
      };
    }
    case "client_streaming": {
      return function clientStreaming(input) {
        return invokeStreamImplementation(spec, context3, input, interceptors, async (req) => {
          return Object.assign({ message: createAsyncIterable([
            normalize(spec.method.output, await spec.impl(req.message, mergeRequest(context3, req)))
          ]), stream: true, method: spec.method }, responseCommon(context3, spec));
        });
      };
    }
    case "bidi_streaming":
      return function biDiStreaming(input) {
        return invokeStreamImplementation(spec, context3, input, interceptors, (req) => {
          return Promise.resolve(Object.assign({ message: normalizeIterable(spec.method.output, spec.impl(req.message, mergeRequest(context3, req))), stream: true, method: spec.method }, responseCommon(context3, spec)));
        });
      };
  }
}
function invokeStreamImplementation(spec, context3, input, interceptors, anyFn) {
  return __asyncGenerator3(this, arguments, function* invokeStreamImplementation_1() {
    const next = applyInterceptors(anyFn, interceptors);
    const { message: message2, header, trailer } = yield __await3(next(Object.assign({ stream: true, message: input, method: spec.method }, requestCommon(context3, spec))));
    copyHeaders(header, context3.responseHeader);
    yield __await3(yield* __asyncDelegator3(__asyncValues3(message2)));
    copyHeaders(trailer, context3.responseTrailer);
  });
}
async function ensureSingle(iterable, method) {
  const it = iterable[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done === true) {
    throw new ConnectError(`protocol error: missing input message for ${method} method`, Code.Unimplemented);
  }
  const second = await it.next();
  if (second.done !== true) {
    throw new ConnectError(`protocol error: received extra input message for ${method} method`, Code.Unimplemented);
  }
  return first.value;
}
function requestCommon(context3, spec) {
  return {
    requestMethod: context3.requestMethod,
    url: context3.url,
    signal: context3.signal,
    header: context3.requestHeader,
    service: spec.method.parent,
    contextValues: context3.values
  };
}
function responseCommon(context3, spec) {
  return {
    service: spec.method.parent,
    header: context3.responseHeader,
    trailer: context3.responseTrailer
  };
}
function mergeRequest(context3, req) {
  return Object.assign(Object.assign({}, context3), { service: req.service, requestHeader: req.header, signal: req.signal, values: req.contextValues });
}
function copyHeaders(from, to) {
  if (from === to) {
    return;
  }
  to.forEach((_, key) => {
    to.delete(key);
  });
  from.forEach((value, key) => {
    to.set(key, value);
  });
}

// node_modules/@connectrpc/connect/dist/esm/protocol/serialization.js
function getJsonOptions(options) {
  var _a2;
  const o = Object.assign({}, options);
  (_a2 = o.ignoreUnknownFields) !== null && _a2 !== void 0 ? _a2 : o.ignoreUnknownFields = true;
  return o;
}
function createMethodSerializationLookup(method, binaryOptions, jsonOptions, limitOptions) {
  const inputBinary = limitSerialization(createBinarySerialization(method.input, binaryOptions), limitOptions);
  const inputJson = limitSerialization(createJsonSerialization(method.input, jsonOptions), limitOptions);
  const outputBinary = limitSerialization(createBinarySerialization(method.output, binaryOptions), limitOptions);
  const outputJson = limitSerialization(createJsonSerialization(method.output, jsonOptions), limitOptions);
  return {
    getI(useBinaryFormat) {
      return useBinaryFormat ? inputBinary : inputJson;
    },
    getO(useBinaryFormat) {
      return useBinaryFormat ? outputBinary : outputJson;
    }
  };
}
function limitSerialization(serialization, limitOptions) {
  return {
    serialize(data) {
      const bytes = serialization.serialize(data);
      assertWriteMaxBytes(limitOptions.writeMaxBytes, bytes.byteLength);
      return bytes;
    },
    parse(data) {
      assertReadMaxBytes(limitOptions.readMaxBytes, data.byteLength, true);
      return serialization.parse(data);
    }
  };
}
function createBinarySerialization(desc, options) {
  return {
    parse(data) {
      try {
        return fromBinary(desc, data, options);
      } catch (e) {
        const m = e instanceof Error ? e.message : String(e);
        throw new ConnectError(`parse binary: ${m}`, Code.Internal);
      }
    },
    serialize(data) {
      try {
        return toBinary(desc, data, options);
      } catch (e) {
        const m = e instanceof Error ? e.message : String(e);
        throw new ConnectError(`serialize binary: ${m}`, Code.Internal);
      }
    }
  };
}
function createJsonSerialization(desc, options) {
  var _a2, _b;
  const textEncoder = (_a2 = options === null || options === void 0 ? void 0 : options.textEncoder) !== null && _a2 !== void 0 ? _a2 : new TextEncoder();
  const textDecoder = (_b = options === null || options === void 0 ? void 0 : options.textDecoder) !== null && _b !== void 0 ? _b : new TextDecoder();
  const o = getJsonOptions(options);
  return {
    parse(data) {
      try {
        const json = textDecoder.decode(data);
        return fromJsonString(desc, json, o);
      } catch (e) {
        throw ConnectError.from(e, Code.InvalidArgument);
      }
    },
    serialize(data) {
      try {
        const json = toJsonString(desc, data, o);
        return textEncoder.encode(json);
      } catch (e) {
        throw ConnectError.from(e, Code.Internal);
      }
    }
  };
}

// node_modules/@connectrpc/connect/dist/esm/protocol/universal.js
function assertByteStreamRequest(req) {
  if (typeof req.body == "object" && req.body !== null && Symbol.asyncIterator in req.body) {
    return;
  }
  throw new Error("byte stream required, but received JSON");
}
var uResponseOk = {
  status: 200
};
var uResponseNotFound = {
  status: 404
};
var uResponseUnsupportedMediaType = {
  status: 415
};
var uResponseMethodNotAllowed = {
  status: 405
};
var uResponseVersionNotSupported = {
  status: 505
};

// node_modules/@connectrpc/connect/dist/esm/protocol/universal-handler.js
function validateUniversalHandlerOptions(opt) {
  var _a2, _b, _c;
  opt !== null && opt !== void 0 ? opt : opt = {};
  const acceptCompression = opt.acceptCompression ? [...opt.acceptCompression] : [];
  const requireConnectProtocolHeader = (_a2 = opt.requireConnectProtocolHeader) !== null && _a2 !== void 0 ? _a2 : false;
  const maxTimeoutMs = (_b = opt.maxTimeoutMs) !== null && _b !== void 0 ? _b : Number.MAX_SAFE_INTEGER;
  return Object.assign(Object.assign({ acceptCompression }, validateReadWriteMaxBytes(opt.readMaxBytes, opt.writeMaxBytes, opt.compressMinBytes)), { jsonOptions: opt.jsonOptions, binaryOptions: opt.binaryOptions, maxTimeoutMs, shutdownSignal: opt.shutdownSignal, requireConnectProtocolHeader, interceptors: (_c = opt.interceptors) !== null && _c !== void 0 ? _c : [] });
}
function createUniversalServiceHandlers(spec, protocols) {
  return Object.entries(spec.methods).map(([, implSpec]) => createUniversalMethodHandler(implSpec, protocols));
}
function createUniversalMethodHandler(spec, protocols) {
  return negotiateProtocol(protocols.map((f) => f(spec)));
}
function negotiateProtocol(protocolHandlers) {
  if (protocolHandlers.length == 0) {
    throw new ConnectError("at least one protocol is required", Code.Internal);
  }
  const service = protocolHandlers[0].service;
  const method = protocolHandlers[0].method;
  const requestPath = protocolHandlers[0].requestPath;
  if (protocolHandlers.some((h) => h.service !== service || h.method !== method)) {
    throw new ConnectError("cannot negotiate protocol for different RPCs", Code.Internal);
  }
  if (protocolHandlers.some((h) => h.requestPath !== requestPath)) {
    throw new ConnectError("cannot negotiate protocol for different requestPaths", Code.Internal);
  }
  async function protocolNegotiatingHandler(request3) {
    var _a2;
    if (method.methodKind == "bidi_streaming" && request3.httpVersion.startsWith("1.")) {
      return Object.assign(Object.assign({}, uResponseVersionNotSupported), {
        // Clients coded to expect full-duplex connections may hang if they've
        // mistakenly negotiated HTTP/1.1. To unblock them, we must close the
        // underlying TCP connection.
        header: new Headers({ Connection: "close" })
      });
    }
    const contentType = (_a2 = request3.header.get("Content-Type")) !== null && _a2 !== void 0 ? _a2 : "";
    const matchingMethod = protocolHandlers.filter((h) => h.allowedMethods.includes(request3.method));
    if (matchingMethod.length == 0) {
      return uResponseMethodNotAllowed;
    }
    if (matchingMethod.length == 1 && contentType === "") {
      const onlyMatch = matchingMethod[0];
      return onlyMatch(request3);
    }
    const matchingContentTypes = matchingMethod.filter((h) => h.supportedContentType(contentType));
    if (matchingContentTypes.length == 0) {
      return uResponseUnsupportedMediaType;
    }
    const firstMatch = matchingContentTypes[0];
    return firstMatch(request3);
  }
  return Object.assign(protocolNegotiatingHandler, {
    service,
    method,
    requestPath,
    supportedContentType: contentTypeMatcher(...protocolHandlers.map((h) => h.supportedContentType)),
    protocolNames: protocolHandlers.flatMap((h) => h.protocolNames).filter((value, index, array) => array.indexOf(value) === index),
    allowedMethods: protocolHandlers.flatMap((h) => h.allowedMethods).filter((value, index, array) => array.indexOf(value) === index)
  });
}

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc-web/handler-factory.js
var protocolName = "grpc-web";
var methodPost = "POST";
function createHandlerFactory(options) {
  const opt = validateUniversalHandlerOptions(options);
  const trailerSerialization = createTrailerSerialization();
  function fact(spec) {
    const h = createHandler(opt, trailerSerialization, spec);
    return Object.assign(h, {
      protocolNames: [protocolName],
      allowedMethods: [methodPost],
      supportedContentType: contentTypeMatcher(contentTypeRegExp),
      requestPath: createMethodUrl("/", spec.method),
      service: spec.method.parent,
      method: spec.method
    });
  }
  fact.protocolName = protocolName;
  return fact;
}
function createHandler(opt, trailerSerialization, spec) {
  const serialization = createMethodSerializationLookup(spec.method, opt.binaryOptions, opt.jsonOptions, opt);
  return async function handle(req) {
    assertByteStreamRequest(req);
    const type = parseContentType(req.header.get(headerContentType));
    if (type == void 0 || type.text) {
      return uResponseUnsupportedMediaType;
    }
    if (req.method !== methodPost) {
      return uResponseMethodNotAllowed;
    }
    const timeout = parseTimeout(req.header.get(headerTimeout), opt.maxTimeoutMs);
    const context3 = createHandlerContext(Object.assign(Object.assign({}, spec), { service: spec.method.parent, requestMethod: req.method, protocolName, timeoutMs: timeout.timeoutMs, shutdownSignal: opt.shutdownSignal, requestSignal: req.signal, requestHeader: req.header, url: req.url, responseHeader: {
      [headerContentType]: type.binary ? contentTypeProto : contentTypeJson
    }, responseTrailer: {
      [headerGrpcStatus]: grpcStatusOk
    }, contextValues: req.contextValues }));
    const compression = compressionNegotiate(opt.acceptCompression, req.header.get(headerEncoding), req.header.get(headerAcceptEncoding), headerAcceptEncoding);
    if (compression.response) {
      context3.responseHeader.set(headerEncoding, compression.response.name);
    }
    const inputIt = pipe(req.body, transformPrepend(() => {
      if (compression.error)
        throw compression.error;
      if (timeout.error)
        throw timeout.error;
      return void 0;
    }), transformSplitEnvelope(opt.readMaxBytes), transformDecompressEnvelope(compression.request, opt.readMaxBytes), transformParseEnvelope(serialization.getI(type.binary), trailerFlag));
    const it = transformInvokeImplementation(spec, context3, opt.interceptors)(inputIt)[Symbol.asyncIterator]();
    const outputIt = pipe(
      // We wrap the iterator in an async iterator to ensure that the
      // abort signal is aborted when the iterator is done.
      {
        [Symbol.asyncIterator]() {
          return {
            next: () => it.next(),
            throw: (e) => {
              var _a2, _b;
              context3.abort(e);
              return (_b = (_a2 = it.throw) === null || _a2 === void 0 ? void 0 : _a2.call(it, e)) !== null && _b !== void 0 ? _b : Promise.reject({ done: true });
            },
            return: (v) => {
              var _a2, _b;
              context3.abort();
              return (_b = (_a2 = it.return) === null || _a2 === void 0 ? void 0 : _a2.call(it, v)) !== null && _b !== void 0 ? _b : Promise.resolve({ done: true, value: v });
            }
          };
        }
      },
      transformSerializeEnvelope(serialization.getO(type.binary)),
      transformCatchFinally((e) => {
        context3.abort(e);
        if (e instanceof ConnectError) {
          setTrailerStatus(context3.responseTrailer, e);
        } else if (e !== void 0) {
          setTrailerStatus(context3.responseTrailer, new ConnectError("internal error", Code.Internal, void 0, void 0, e));
        }
        return {
          flags: trailerFlag,
          data: trailerSerialization.serialize(context3.responseTrailer)
        };
      }),
      transformCompressEnvelope(compression.response, opt.compressMinBytes),
      transformJoinEnvelopes(),
      { propagateDownStreamError: true }
    );
    return Object.assign(Object.assign({}, uResponseOk), {
      // We wait for the first response body bytes before resolving, so that
      // implementations have a chance to add headers before an adapter commits
      // them to the wire.
      body: await untilFirst(outputIt),
      header: context3.responseHeader
    });
  };
}

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc/content-type.js
var contentTypeRegExp2 = /^application\/grpc(?:\+(?:(json)(?:; ?charset=utf-?8)?|proto))?$/i;
var contentTypeProto2 = "application/grpc+proto";
var contentTypeJson2 = "application/grpc+json";
function parseContentType2(contentType) {
  const match = contentType === null || contentType === void 0 ? void 0 : contentType.match(contentTypeRegExp2);
  if (!match) {
    return void 0;
  }
  const binary = !match[1];
  return { binary };
}

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc/handler-factory.js
var protocolName2 = "grpc";
var methodPost2 = "POST";
function createHandlerFactory2(options) {
  const opt = validateUniversalHandlerOptions(options);
  function fact(spec) {
    const h = createHandler2(opt, spec);
    return Object.assign(h, {
      protocolNames: [protocolName2],
      allowedMethods: [methodPost2],
      supportedContentType: contentTypeMatcher(contentTypeRegExp2),
      requestPath: createMethodUrl("/", spec.method),
      service: spec.method.parent,
      method: spec.method
    });
  }
  fact.protocolName = protocolName2;
  return fact;
}
function createHandler2(opt, spec) {
  const serialization = createMethodSerializationLookup(spec.method, opt.binaryOptions, opt.jsonOptions, opt);
  return async function handle(req) {
    assertByteStreamRequest(req);
    const type = parseContentType2(req.header.get(headerContentType));
    if (type == void 0) {
      return uResponseUnsupportedMediaType;
    }
    if (req.method !== methodPost2) {
      return uResponseMethodNotAllowed;
    }
    const timeout = parseTimeout(req.header.get(headerTimeout), opt.maxTimeoutMs);
    const context3 = createHandlerContext(Object.assign(Object.assign({}, spec), { service: spec.method.parent, requestMethod: req.method, protocolName: protocolName2, timeoutMs: timeout.timeoutMs, shutdownSignal: opt.shutdownSignal, requestSignal: req.signal, requestHeader: req.header, url: req.url, responseHeader: {
      [headerContentType]: type.binary ? contentTypeProto2 : contentTypeJson2
    }, responseTrailer: {
      [headerGrpcStatus]: grpcStatusOk
    }, contextValues: req.contextValues }));
    const compression = compressionNegotiate(opt.acceptCompression, req.header.get(headerEncoding), req.header.get(headerAcceptEncoding), headerAcceptEncoding);
    if (compression.response) {
      context3.responseHeader.set(headerEncoding, compression.response.name);
    }
    const inputIt = pipe(req.body, transformPrepend(() => {
      if (compression.error)
        throw compression.error;
      if (timeout.error)
        throw timeout.error;
      return void 0;
    }), transformSplitEnvelope(opt.readMaxBytes), transformDecompressEnvelope(compression.request, opt.readMaxBytes), transformParseEnvelope(serialization.getI(type.binary)));
    const it = transformInvokeImplementation(spec, context3, opt.interceptors)(inputIt)[Symbol.asyncIterator]();
    const outputIt = pipe(
      // We wrap the iterator in an async iterator to ensure that the
      // abort signal is aborted when the iterator is done.
      {
        [Symbol.asyncIterator]() {
          return {
            next: () => it.next(),
            throw: (e) => {
              var _a2, _b;
              context3.abort(e);
              return (_b = (_a2 = it.throw) === null || _a2 === void 0 ? void 0 : _a2.call(it, e)) !== null && _b !== void 0 ? _b : Promise.reject({ done: true });
            },
            return: (v) => {
              var _a2, _b;
              context3.abort();
              return (_b = (_a2 = it.return) === null || _a2 === void 0 ? void 0 : _a2.call(it, v)) !== null && _b !== void 0 ? _b : Promise.resolve({ done: true, value: v });
            }
          };
        }
      },
      transformSerializeEnvelope(serialization.getO(type.binary)),
      transformCompressEnvelope(compression.response, opt.compressMinBytes),
      transformJoinEnvelopes(),
      transformCatchFinally((e) => {
        context3.abort(e);
        if (e instanceof ConnectError) {
          setTrailerStatus(context3.responseTrailer, e);
        } else if (e !== void 0) {
          setTrailerStatus(context3.responseTrailer, new ConnectError("internal error", Code.Internal, void 0, void 0, e));
        }
      }),
      { propagateDownStreamError: true }
    );
    return Object.assign(Object.assign({}, uResponseOk), {
      // We wait for the first response body bytes before resolving, so that
      // implementations have a chance to add headers before an adapter commits
      // them to the wire.
      body: await untilFirst(outputIt),
      header: context3.responseHeader,
      trailer: context3.responseTrailer
    });
  };
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/content-type.js
var contentTypeRegExp3 = /^application\/(connect\+)?(?:(json)(?:; ?charset=utf-?8)?|(proto))$/i;
var contentTypeUnaryRegExp = /^application\/(?:json(?:; ?charset=utf-?8)?|proto)$/i;
var contentTypeStreamRegExp = /^application\/connect\+?(?:json(?:; ?charset=utf-?8)?|proto)$/i;
var contentTypeUnaryProto = "application/proto";
var contentTypeUnaryJson = "application/json";
var contentTypeStreamProto = "application/connect+proto";
var contentTypeStreamJson = "application/connect+json";
var encodingProto = "proto";
var encodingJson = "json";
function parseContentType3(contentType) {
  const match = contentType === null || contentType === void 0 ? void 0 : contentType.match(contentTypeRegExp3);
  if (!match) {
    return void 0;
  }
  const stream = !!match[1];
  const binary = !!match[3];
  return { stream, binary };
}
function parseEncodingQuery(encoding) {
  switch (encoding) {
    case encodingProto:
      return { stream: false, binary: true };
    case encodingJson:
      return { stream: false, binary: false };
    default:
      return void 0;
  }
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/error-json.js
var __rest = function(s, e) {
  var t = {};
  for (var p in s) if (Object.prototype.hasOwnProperty.call(s, p) && e.indexOf(p) < 0)
    t[p] = s[p];
  if (s != null && typeof Object.getOwnPropertySymbols === "function")
    for (var i = 0, p = Object.getOwnPropertySymbols(s); i < p.length; i++) {
      if (e.indexOf(p[i]) < 0 && Object.prototype.propertyIsEnumerable.call(s, p[i]))
        t[p[i]] = s[p[i]];
    }
  return t;
};
function errorFromJson(jsonValue, metadata, fallback2) {
  var _a2;
  if (metadata) {
    new Headers(metadata).forEach((value, key) => fallback2.metadata.append(key, value));
  }
  if (typeof jsonValue !== "object" || jsonValue == null || Array.isArray(jsonValue)) {
    throw fallback2;
  }
  let code = fallback2.code;
  if ("code" in jsonValue && typeof jsonValue.code === "string") {
    code = (_a2 = codeFromString(jsonValue.code)) !== null && _a2 !== void 0 ? _a2 : code;
  }
  const message2 = jsonValue.message;
  if (message2 != null && typeof message2 !== "string") {
    throw fallback2;
  }
  const error2 = new ConnectError(message2 !== null && message2 !== void 0 ? message2 : "", code, metadata);
  if ("details" in jsonValue && Array.isArray(jsonValue.details)) {
    for (const detail of jsonValue.details) {
      if (detail === null || typeof detail != "object" || Array.isArray(detail) || typeof detail.type != "string" || typeof detail.value != "string") {
        throw fallback2;
      }
      try {
        error2.details.push({
          type: detail.type,
          value: base64Decode(detail.value),
          debug: detail.debug
        });
      } catch (e) {
        throw fallback2;
      }
    }
  }
  return error2;
}
function errorFromJsonBytes(bytes, metadata, fallback2) {
  let jsonValue;
  try {
    jsonValue = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw fallback2;
  }
  return errorFromJson(jsonValue, metadata, fallback2);
}
function errorToJson(error2, jsonWriteOptions) {
  const o = {
    code: codeToString(error2.code)
  };
  if (error2.rawMessage.length > 0) {
    o.message = error2.rawMessage;
  }
  if (error2.details.length > 0) {
    o.details = error2.details.map((detail) => {
      if ("desc" in detail) {
        const msg = create(detail.desc, detail.value);
        const i = {
          type: detail.desc.typeName,
          value: toBinary(detail.desc, msg)
        };
        try {
          i.debug = toJson(detail.desc, msg, jsonWriteOptions);
        } catch (e) {
        }
        return i;
      }
      return detail;
    }).map((_a2) => {
      var { value } = _a2, rest = __rest(_a2, ["value"]);
      return Object.assign(Object.assign({}, rest), { value: base64Encode(value, "std_raw") });
    });
  }
  return o;
}
function errorToJsonBytes(error2, jsonWriteOptions) {
  const textEncoder = new TextEncoder();
  try {
    const jsonObject = errorToJson(error2, jsonWriteOptions);
    const jsonString = JSON.stringify(jsonObject);
    return textEncoder.encode(jsonString);
  } catch (e) {
    const m = e instanceof Error ? e.message : String(e);
    throw new ConnectError(`failed to serialize Connect Error: ${m}`, Code.Internal);
  }
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/end-stream.js
var endStreamFlag = 2;
function endStreamFromJson(data) {
  const parseErr = new ConnectError("invalid end stream", Code.Unknown);
  let jsonValue;
  try {
    jsonValue = JSON.parse(typeof data == "string" ? data : new TextDecoder().decode(data));
  } catch (e) {
    throw parseErr;
  }
  if (typeof jsonValue != "object" || jsonValue == null || Array.isArray(jsonValue)) {
    throw parseErr;
  }
  const metadata = new Headers();
  if ("metadata" in jsonValue) {
    if (typeof jsonValue.metadata != "object" || jsonValue.metadata == null || Array.isArray(jsonValue.metadata)) {
      throw parseErr;
    }
    for (const [key, values] of Object.entries(jsonValue.metadata)) {
      if (!Array.isArray(values) || values.some((value) => typeof value != "string")) {
        throw parseErr;
      }
      for (const value of values) {
        metadata.append(key, value);
      }
    }
  }
  const error2 = "error" in jsonValue && jsonValue.error != null ? errorFromJson(jsonValue.error, metadata, parseErr) : void 0;
  return { metadata, error: error2 };
}
function endStreamToJson(metadata, error2, jsonWriteOptions) {
  const es = {};
  if (error2 !== void 0) {
    es.error = errorToJson(error2, jsonWriteOptions);
    metadata = appendHeaders(metadata, error2.metadata);
  }
  let hasMetadata = false;
  const md = {};
  metadata.forEach((value, key) => {
    hasMetadata = true;
    md[key] = [value];
  });
  if (hasMetadata) {
    es.metadata = md;
  }
  return es;
}
function createEndStreamSerialization(options) {
  const textEncoder = new TextEncoder();
  return {
    serialize(data) {
      try {
        const jsonObject = endStreamToJson(data.metadata, data.error, options);
        const jsonString = JSON.stringify(jsonObject);
        return textEncoder.encode(jsonString);
      } catch (e) {
        const m = e instanceof Error ? e.message : String(e);
        throw new ConnectError(`failed to serialize EndStreamResponse: ${m}`, Code.Internal);
      }
    },
    parse(data) {
      try {
        return endStreamFromJson(data);
      } catch (e) {
        const m = e instanceof Error ? e.message : String(e);
        throw new ConnectError(`failed to parse EndStreamResponse: ${m}`, Code.InvalidArgument);
      }
    }
  };
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/headers.js
var headerContentType2 = "Content-Type";
var headerUnaryContentLength = "Content-Length";
var headerUnaryEncoding = "Content-Encoding";
var headerStreamEncoding = "Connect-Content-Encoding";
var headerUnaryAcceptEncoding = "Accept-Encoding";
var headerStreamAcceptEncoding = "Connect-Accept-Encoding";
var headerTimeout2 = "Connect-Timeout-Ms";
var headerProtocolVersion = "Connect-Protocol-Version";
var headerUserAgent2 = "User-Agent";

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/http-status.js
function codeFromHttpStatus(httpStatus) {
  switch (httpStatus) {
    case 400:
      return Code.Internal;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.Unimplemented;
    case 429:
      return Code.Unavailable;
    case 502:
      return Code.Unavailable;
    case 503:
      return Code.Unavailable;
    case 504:
      return Code.Unavailable;
    default:
      return Code.Unknown;
  }
}
function codeToHttpStatus(code) {
  switch (code) {
    case Code.Canceled:
      return 499;
    // Client Closed Request
    case Code.Unknown:
      return 500;
    // Internal Server Error
    case Code.InvalidArgument:
      return 400;
    // Bad Request
    case Code.DeadlineExceeded:
      return 504;
    // Gateway Timeout
    case Code.NotFound:
      return 404;
    // Not Found
    case Code.AlreadyExists:
      return 409;
    // Conflict
    case Code.PermissionDenied:
      return 403;
    // Forbidden
    case Code.ResourceExhausted:
      return 429;
    // Too Many Requests
    case Code.FailedPrecondition:
      return 400;
    // Bad Request
    case Code.Aborted:
      return 409;
    // Conflict
    case Code.OutOfRange:
      return 400;
    // Bad Request
    case Code.Unimplemented:
      return 501;
    // Not Implemented
    case Code.Internal:
      return 500;
    // Internal Server Error
    case Code.Unavailable:
      return 503;
    // Service Unavailable
    case Code.DataLoss:
      return 500;
    // Internal Server Error
    case Code.Unauthenticated:
      return 401;
    // Unauthorized
    default:
      return 500;
  }
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/parse-timeout.js
function parseTimeout2(value, maxTimeoutMs) {
  if (value === null) {
    return {};
  }
  const results = /^\d{1,10}$/.exec(value);
  if (results === null) {
    return {
      error: new ConnectError(`protocol error: invalid connect timeout value: ${value}`, Code.InvalidArgument)
    };
  }
  const timeoutMs = parseInt(results[0]);
  if (timeoutMs > maxTimeoutMs) {
    return {
      timeoutMs,
      error: new ConnectError(`timeout ${timeoutMs}ms must be <= ${maxTimeoutMs}`, Code.InvalidArgument)
    };
  }
  return {
    timeoutMs: parseInt(results[0])
  };
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/query-params.js
var paramConnectVersion = "connect";
var paramEncoding = "encoding";
var paramCompression = "compression";
var paramBase64 = "base64";
var paramMessage = "message";

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/trailer-mux.js
function trailerDemux(header) {
  const h = new Headers(), t = new Headers();
  header.forEach((value, key) => {
    if (key.toLowerCase().startsWith("trailer-")) {
      t.append(key.substring(8), value);
    } else {
      h.append(key, value);
    }
  });
  return [h, t];
}
function trailerMux(header, trailer) {
  const h = new Headers(header);
  trailer.forEach((value, key) => {
    h.append(`trailer-${key}`, value);
  });
  return h;
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/version.js
var protocolVersion = "1";
function requireProtocolVersionHeader(requestHeader3) {
  const v = requestHeader3.get(headerProtocolVersion);
  if (v === null) {
    throw new ConnectError(`missing required header: set ${headerProtocolVersion} to "${protocolVersion}"`, Code.InvalidArgument);
  }
  if (v !== protocolVersion) {
    throw new ConnectError(`${headerProtocolVersion} must be "${protocolVersion}": got "${v}"`, Code.InvalidArgument);
  }
}
function requireProtocolVersionParam(queryParams) {
  const v = queryParams.get(paramConnectVersion);
  if (v === null) {
    throw new ConnectError(`missing required parameter: set ${paramConnectVersion} to "v${protocolVersion}"`, Code.InvalidArgument);
  }
  if (v !== `v${protocolVersion}`) {
    throw new ConnectError(`${paramConnectVersion} must be "v${protocolVersion}": got "${v}"`, Code.InvalidArgument);
  }
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/handler-factory.js
var protocolName3 = "connect";
var methodPost3 = "POST";
var methodGet = "GET";
function createHandlerFactory3(options) {
  const opt = validateUniversalHandlerOptions(options);
  const endStreamSerialization = createEndStreamSerialization(opt.jsonOptions);
  function fact(spec) {
    let h;
    let contentTypeRegExp4;
    const serialization = createMethodSerializationLookup(spec.method, opt.binaryOptions, opt.jsonOptions, opt);
    switch (spec.kind) {
      case "unary":
        contentTypeRegExp4 = contentTypeUnaryRegExp;
        h = createUnaryHandler(opt, spec, serialization);
        break;
      default:
        contentTypeRegExp4 = contentTypeStreamRegExp;
        h = createStreamHandler(opt, spec, serialization, endStreamSerialization);
        break;
    }
    const allowedMethods = [methodPost3];
    if (spec.method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS) {
      allowedMethods.push(methodGet);
    }
    return Object.assign(h, {
      protocolNames: [protocolName3],
      supportedContentType: contentTypeMatcher(contentTypeRegExp4),
      allowedMethods,
      requestPath: createMethodUrl("/", spec.method),
      service: spec.method.parent,
      method: spec.method
    });
  }
  fact.protocolName = protocolName3;
  return fact;
}
function createUnaryHandler(opt, spec, serialization) {
  return async function handle(req) {
    const isGet = req.method == methodGet;
    if (isGet && spec.method.idempotency != MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS) {
      return uResponseMethodNotAllowed;
    }
    const queryParams = new URL(req.url).searchParams;
    const compressionRequested = isGet ? queryParams.get(paramCompression) : req.header.get(headerUnaryEncoding);
    const type = isGet ? parseEncodingQuery(queryParams.get(paramEncoding)) : parseContentType3(req.header.get(headerContentType2));
    if (type == void 0 || type.stream) {
      return uResponseUnsupportedMediaType;
    }
    const timeout = parseTimeout2(req.header.get(headerTimeout2), opt.maxTimeoutMs);
    const context3 = createHandlerContext(Object.assign(Object.assign({}, spec), { service: spec.method.parent, requestMethod: req.method, protocolName: protocolName3, timeoutMs: timeout.timeoutMs, shutdownSignal: opt.shutdownSignal, requestSignal: req.signal, requestHeader: req.header, url: req.url, responseHeader: {
      [headerContentType2]: type.binary ? contentTypeUnaryProto : contentTypeUnaryJson
    }, contextValues: req.contextValues }));
    const compression = compressionNegotiate(opt.acceptCompression, compressionRequested, req.header.get(headerUnaryAcceptEncoding), headerUnaryAcceptEncoding);
    let status = uResponseOk.status;
    let body;
    try {
      if (opt.requireConnectProtocolHeader) {
        if (isGet) {
          requireProtocolVersionParam(queryParams);
        } else {
          requireProtocolVersionHeader(req.header);
        }
      }
      if (compression.error) {
        throw compression.error;
      }
      if (timeout.error) {
        throw timeout.error;
      }
      let reqBody;
      if (isGet) {
        reqBody = await readUnaryMessageFromQuery(opt.readMaxBytes, compression.request, queryParams);
      } else {
        reqBody = await readUnaryMessageFromBody(opt.readMaxBytes, compression.request, req);
      }
      const input = parseUnaryMessage(spec.method, type.binary, serialization, reqBody);
      const output = await invokeUnaryImplementation(spec, context3, input, opt.interceptors);
      body = serialization.getO(type.binary).serialize(output);
    } catch (e) {
      context3.abort(e);
      let error2;
      if (e instanceof ConnectError) {
        error2 = e;
      } else {
        error2 = new ConnectError("internal error", Code.Internal, void 0, void 0, e);
      }
      status = codeToHttpStatus(error2.code);
      context3.responseHeader.set(headerContentType2, contentTypeUnaryJson);
      error2.metadata.forEach((value, key) => {
        context3.responseHeader.set(key, value);
      });
      body = errorToJsonBytes(error2, opt.jsonOptions);
    } finally {
      context3.abort();
    }
    if (compression.response && body.byteLength >= opt.compressMinBytes) {
      body = await compression.response.compress(body);
      context3.responseHeader.set(headerUnaryEncoding, compression.response.name);
    }
    const header = trailerMux(context3.responseHeader, context3.responseTrailer);
    header.set(headerUnaryContentLength, body.byteLength.toString(10));
    return {
      status,
      body: createAsyncIterable([body]),
      header
    };
  };
}
async function readUnaryMessageFromBody(readMaxBytes, compression, request3) {
  if (typeof request3.body == "object" && request3.body !== null && Symbol.asyncIterator in request3.body) {
    let reqBytes = await readAllBytes(request3.body, readMaxBytes, request3.header.get(headerUnaryContentLength));
    if (compression) {
      reqBytes = await compression.decompress(reqBytes, readMaxBytes);
    }
    return reqBytes;
  }
  return request3.body;
}
async function readUnaryMessageFromQuery(readMaxBytes, compression, queryParams) {
  var _a2;
  const base64 = queryParams.get(paramBase64);
  const message2 = (_a2 = queryParams.get(paramMessage)) !== null && _a2 !== void 0 ? _a2 : "";
  let decoded;
  if (base64 === "1") {
    decoded = base64Decode(message2);
  } else {
    decoded = new TextEncoder().encode(message2);
  }
  if (compression) {
    decoded = await compression.decompress(decoded, readMaxBytes);
  }
  return decoded;
}
function parseUnaryMessage(method, useBinaryFormat, serialization, input) {
  if (input instanceof Uint8Array) {
    return serialization.getI(useBinaryFormat).parse(input);
  }
  if (useBinaryFormat) {
    throw new ConnectError("received parsed JSON request body, but content-type indicates binary format", Code.Internal);
  }
  try {
    return fromJson(method.input, input);
  } catch (e) {
    throw ConnectError.from(e, Code.InvalidArgument);
  }
}
function createStreamHandler(opt, spec, serialization, endStreamSerialization) {
  return async function handle(req) {
    assertByteStreamRequest(req);
    const type = parseContentType3(req.header.get(headerContentType2));
    if (type == void 0 || !type.stream) {
      return uResponseUnsupportedMediaType;
    }
    if (req.method !== methodPost3) {
      return uResponseMethodNotAllowed;
    }
    const timeout = parseTimeout2(req.header.get(headerTimeout2), opt.maxTimeoutMs);
    const context3 = createHandlerContext(Object.assign(Object.assign({}, spec), { service: spec.method.parent, requestMethod: req.method, protocolName: protocolName3, timeoutMs: timeout.timeoutMs, shutdownSignal: opt.shutdownSignal, requestSignal: req.signal, requestHeader: req.header, url: req.url, responseHeader: {
      [headerContentType2]: type.binary ? contentTypeStreamProto : contentTypeStreamJson
    }, contextValues: req.contextValues }));
    const compression = compressionNegotiate(opt.acceptCompression, req.header.get(headerStreamEncoding), req.header.get(headerStreamAcceptEncoding), headerStreamAcceptEncoding);
    if (compression.response) {
      context3.responseHeader.set(headerStreamEncoding, compression.response.name);
    }
    const inputIt = pipe(req.body, transformPrepend(() => {
      if (opt.requireConnectProtocolHeader) {
        requireProtocolVersionHeader(req.header);
      }
      if (compression.error)
        throw compression.error;
      if (timeout.error)
        throw timeout.error;
      return void 0;
    }), transformSplitEnvelope(opt.readMaxBytes), transformDecompressEnvelope(compression.request, opt.readMaxBytes), transformParseEnvelope(serialization.getI(type.binary), endStreamFlag));
    const it = transformInvokeImplementation(spec, context3, opt.interceptors)(inputIt)[Symbol.asyncIterator]();
    const outputIt = pipe(
      // We wrap the iterator in an async iterator to ensure that the
      // abort signal is aborted when the iterator is done.
      {
        [Symbol.asyncIterator]() {
          return {
            next: () => it.next(),
            throw: (e) => {
              var _a2, _b;
              context3.abort(e);
              return (_b = (_a2 = it.throw) === null || _a2 === void 0 ? void 0 : _a2.call(it, e)) !== null && _b !== void 0 ? _b : Promise.reject({ done: true });
            },
            return: (v) => {
              var _a2, _b;
              context3.abort();
              return (_b = (_a2 = it.return) === null || _a2 === void 0 ? void 0 : _a2.call(it, v)) !== null && _b !== void 0 ? _b : Promise.resolve({ done: true, value: v });
            }
          };
        }
      },
      transformSerializeEnvelope(serialization.getO(type.binary)),
      transformCatchFinally((e) => {
        context3.abort(e);
        const end = {
          metadata: context3.responseTrailer
        };
        if (e instanceof ConnectError) {
          end.error = e;
        } else if (e !== void 0) {
          end.error = new ConnectError("internal error", Code.Internal, void 0, void 0, e);
        }
        return {
          flags: endStreamFlag,
          data: endStreamSerialization.serialize(end)
        };
      }),
      transformCompressEnvelope(compression.response, opt.compressMinBytes),
      transformJoinEnvelopes(),
      { propagateDownStreamError: true }
    );
    return Object.assign(Object.assign({}, uResponseOk), {
      // We wait for the first response body bytes before resolving, so that
      // implementations have a chance to add headers before an adapter commits
      // them to the wire.
      body: await untilFirst(outputIt),
      header: context3.responseHeader
    });
  };
}

// node_modules/@connectrpc/connect/dist/esm/router.js
function createConnectRouter(routerOptions) {
  const base = whichProtocols(routerOptions);
  const handlers = [];
  const router = {
    handlers,
    service: (service, implementation, options) => {
      const { protocols } = whichProtocols(options, base);
      handlers.push(...createUniversalServiceHandlers(createServiceImplSpec(service, implementation), protocols));
      return router;
    },
    rpc: (method, impl, opt) => {
      const { protocols } = whichProtocols(opt, base);
      handlers.push(createUniversalMethodHandler(createMethodImplSpec(method, impl), protocols));
      return router;
    }
  };
  return router;
}
function whichProtocols(options, base) {
  if (base && !options) {
    return base;
  }
  const opt = base ? Object.assign(Object.assign({}, validateUniversalHandlerOptions(base.options)), options) : Object.assign(Object.assign({}, options), validateUniversalHandlerOptions(options !== null && options !== void 0 ? options : {}));
  const protocols = [];
  if ((options === null || options === void 0 ? void 0 : options.grpc) !== false) {
    protocols.push(createHandlerFactory2(opt));
  }
  if ((options === null || options === void 0 ? void 0 : options.grpcWeb) !== false) {
    protocols.push(createHandlerFactory(opt));
  }
  if ((options === null || options === void 0 ? void 0 : options.connect) !== false) {
    protocols.push(createHandlerFactory3(opt));
  }
  if (protocols.length === 0) {
    throw new ConnectError("cannot create handler, all protocols are disabled", Code.InvalidArgument);
  }
  return {
    options: opt,
    protocols
  };
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/request-header.js
function requestHeader(methodKind, useBinaryFormat, timeoutMs, userProvidedHeaders, setUserAgent) {
  const result = new Headers(userProvidedHeaders !== null && userProvidedHeaders !== void 0 ? userProvidedHeaders : {});
  if (timeoutMs !== void 0) {
    result.set(headerTimeout2, `${timeoutMs}`);
  }
  result.set(headerContentType2, methodKind == "unary" ? useBinaryFormat ? contentTypeUnaryProto : contentTypeUnaryJson : useBinaryFormat ? contentTypeStreamProto : contentTypeStreamJson);
  result.set(headerProtocolVersion, protocolVersion);
  if (!result.has(headerUserAgent2) && setUserAgent) {
    result.set(headerUserAgent2, "connect-es/2.1.2");
  }
  return result;
}
function requestHeaderWithCompression(methodKind, useBinaryFormat, timeoutMs, userProvidedHeaders, acceptCompression, sendCompression, setUserAgent) {
  const result = requestHeader(methodKind, useBinaryFormat, timeoutMs, userProvidedHeaders, setUserAgent);
  if (sendCompression != null) {
    const name = methodKind == "unary" ? headerUnaryEncoding : headerStreamEncoding;
    result.set(name, sendCompression.name);
  }
  if (acceptCompression.length > 0) {
    const name = methodKind == "unary" ? headerUnaryAcceptEncoding : headerStreamAcceptEncoding;
    result.set(name, acceptCompression.map((c) => c.name).join(","));
  }
  return result;
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/validate-response.js
function validateResponse(methodKind, useBinaryFormat, status, headers) {
  const mimeType = headers.get(headerContentType2);
  const parsedType = parseContentType3(mimeType);
  if (status !== 200) {
    const errorFromStatus = new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status), headers);
    if (methodKind == "unary" && parsedType && !parsedType.binary) {
      return { isUnaryError: true, unaryError: errorFromStatus };
    }
    throw errorFromStatus;
  }
  const allowedContentType = {
    binary: useBinaryFormat,
    stream: methodKind !== "unary"
  };
  if ((parsedType === null || parsedType === void 0 ? void 0 : parsedType.binary) !== allowedContentType.binary || parsedType.stream !== allowedContentType.stream) {
    throw new ConnectError(`unsupported content type ${mimeType}`, parsedType === void 0 ? Code.Unknown : Code.Internal, headers);
  }
  return { isUnaryError: false };
}
function validateResponseWithCompression(methodKind, acceptCompression, useBinaryFormat, status, headers) {
  let compression;
  const encoding = headers.get(methodKind == "unary" ? headerUnaryEncoding : headerStreamEncoding);
  if (encoding != null && encoding.toLowerCase() !== "identity") {
    compression = acceptCompression.find((c) => c.name === encoding);
    if (!compression) {
      throw new ConnectError(`unsupported response encoding "${encoding}"`, Code.Internal, headers);
    }
  }
  return Object.assign({ compression }, validateResponse(methodKind, useBinaryFormat, status, headers));
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/get-request.js
var contentTypePrefix = "application/";
function encodeMessageForUrl(message2, useBase64) {
  if (useBase64) {
    return base64Encode(message2, "url");
  }
  return encodeURIComponent(new TextDecoder().decode(message2));
}
function transformConnectPostToGetRequest(request3, message2, useBase64) {
  let query = `?connect=v${protocolVersion}`;
  let compressionQuery = "";
  const compression = request3.header.get(headerUnaryEncoding);
  if (compression !== null && compression !== "identity") {
    compressionQuery = "&compression=" + encodeURIComponent(compression);
    useBase64 = true;
  }
  if (useBase64) {
    query += "&base64=1";
  }
  query += compressionQuery;
  const contentType = request3.header.get(headerContentType2);
  if ((contentType === null || contentType === void 0 ? void 0 : contentType.indexOf(contentTypePrefix)) === 0) {
    query += "&encoding=" + encodeURIComponent(contentType.slice(contentTypePrefix.length));
  }
  query += "&message=" + encodeMessageForUrl(message2, useBase64);
  const url = request3.url + query;
  const header = new Headers(request3.header);
  for (const h of [
    headerProtocolVersion,
    headerContentType2,
    headerUnaryContentLength,
    headerUnaryEncoding,
    headerUnaryAcceptEncoding
  ]) {
    header.delete(h);
  }
  return Object.assign(Object.assign({}, request3), {
    requestMethod: "GET",
    url,
    header
  });
}

// node_modules/@connectrpc/connect/dist/esm/protocol/run-call.js
function runUnaryCall(opt) {
  const next = applyInterceptors(opt.next, opt.interceptors);
  const [signal, abort, done] = setupSignal(opt);
  const req = Object.assign(Object.assign({}, opt.req), { message: normalize(opt.req.method.input, opt.req.message), signal });
  return next(req).then((res) => {
    done();
    return res;
  }, abort);
}
function runStreamingCall(opt) {
  const next = applyInterceptors(opt.next, opt.interceptors);
  const [signal, abort, done] = setupSignal(opt);
  const req = Object.assign(Object.assign({}, opt.req), { message: normalizeIterable(opt.req.method.input, opt.req.message), signal });
  let doneCalled = false;
  signal.addEventListener("abort", function() {
    var _a2, _b;
    const it = opt.req.message[Symbol.asyncIterator]();
    if (!doneCalled) {
      (_a2 = it.throw) === null || _a2 === void 0 ? void 0 : _a2.call(it, this.reason).catch(() => {
      });
    }
    (_b = it.return) === null || _b === void 0 ? void 0 : _b.call(it).catch(() => {
    });
  });
  return next(req).then((res) => {
    return Object.assign(Object.assign({}, res), { message: {
      [Symbol.asyncIterator]() {
        const it = res.message[Symbol.asyncIterator]();
        return {
          next() {
            return it.next().then((r) => {
              if (r.done == true) {
                doneCalled = true;
                done();
              }
              return r;
            }, abort);
          }
          // We deliberately omit throw/return.
        };
      }
    } });
  }, abort);
}
function setupSignal(opt) {
  const { signal, cleanup } = createDeadlineSignal(opt.timeoutMs);
  const controller = createLinkedAbortController(opt.signal, signal);
  return [
    controller.signal,
    function abort(reason) {
      const e = controller.signal.aborted ? ConnectError.from(getAbortSignalReason(controller.signal), Code.Canceled) : ConnectError.from(reason);
      controller.abort(e);
      cleanup();
      return Promise.reject(e);
    },
    function done() {
      cleanup();
      controller.abort();
    }
  ];
}

// node_modules/@connectrpc/connect/dist/esm/protocol-connect/transport.js
var __asyncValues4 = function(o) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var m = o[Symbol.asyncIterator], i;
  return m ? m.call(o) : (o = typeof __values === "function" ? __values(o) : o[Symbol.iterator](), i = {}, verb("next"), verb("throw"), verb("return"), i[Symbol.asyncIterator] = function() {
    return this;
  }, i);
  function verb(n) {
    i[n] = o[n] && function(v) {
      return new Promise(function(resolve, reject) {
        v = o[n](v), settle(resolve, reject, v.done, v.value);
      });
    };
  }
  function settle(resolve, reject, d, v) {
    Promise.resolve(v).then(function(v2) {
      resolve({ value: v2, done: d });
    }, reject);
  }
};
var __await4 = function(v) {
  return this instanceof __await4 ? (this.v = v, this) : new __await4(v);
};
var __asyncGenerator4 = function(thisArg, _arguments, generator) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var g = generator.apply(thisArg, _arguments || []), i, q = [];
  return i = Object.create((typeof AsyncIterator === "function" ? AsyncIterator : Object).prototype), verb("next"), verb("throw"), verb("return", awaitReturn), i[Symbol.asyncIterator] = function() {
    return this;
  }, i;
  function awaitReturn(f) {
    return function(v) {
      return Promise.resolve(v).then(f, reject);
    };
  }
  function verb(n, f) {
    if (g[n]) {
      i[n] = function(v) {
        return new Promise(function(a, b) {
          q.push([n, v, a, b]) > 1 || resume(n, v);
        });
      };
      if (f) i[n] = f(i[n]);
    }
  }
  function resume(n, v) {
    try {
      step(g[n](v));
    } catch (e) {
      settle(q[0][3], e);
    }
  }
  function step(r) {
    r.value instanceof __await4 ? Promise.resolve(r.value.v).then(fulfill, reject) : settle(q[0][2], r);
  }
  function fulfill(value) {
    resume("next", value);
  }
  function reject(value) {
    resume("throw", value);
  }
  function settle(f, v) {
    if (f(v), q.shift(), q.length) resume(q[0][0], q[0][1]);
  }
};
function createTransport(opt) {
  return {
    async unary(method, signal, timeoutMs, header, message2, contextValues) {
      const serialization = createMethodSerializationLookup(method, opt.binaryOptions, opt.jsonOptions, opt);
      timeoutMs = timeoutMs === void 0 ? opt.defaultTimeoutMs : timeoutMs <= 0 ? void 0 : timeoutMs;
      return await runUnaryCall({
        interceptors: opt.interceptors,
        signal,
        timeoutMs,
        req: {
          stream: false,
          service: method.parent,
          method,
          requestMethod: "POST",
          url: createMethodUrl(opt.baseUrl, method),
          header: requestHeaderWithCompression(method.methodKind, opt.useBinaryFormat, timeoutMs, header, opt.acceptCompression, opt.sendCompression, true),
          contextValues: contextValues !== null && contextValues !== void 0 ? contextValues : createContextValues(),
          message: message2
        },
        next: async (req) => {
          let requestBody = serialization.getI(opt.useBinaryFormat).serialize(req.message);
          if (opt.sendCompression && requestBody.byteLength > opt.compressMinBytes) {
            requestBody = await opt.sendCompression.compress(requestBody);
            req.header.set(headerUnaryEncoding, opt.sendCompression.name);
          } else {
            req.header.delete(headerUnaryEncoding);
          }
          const useGet = opt.useHttpGet === true && method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS;
          let body;
          if (useGet) {
            req = transformConnectPostToGetRequest(req, requestBody, opt.useBinaryFormat);
          } else {
            body = createAsyncIterable([requestBody]);
          }
          const universalResponse = await opt.httpClient({
            url: req.url,
            method: req.requestMethod,
            header: req.header,
            signal: req.signal,
            body
          });
          const { compression, isUnaryError, unaryError } = validateResponseWithCompression(method.methodKind, opt.acceptCompression, opt.useBinaryFormat, universalResponse.status, universalResponse.header);
          const [header2, trailer] = trailerDemux(universalResponse.header);
          let responseBody = await pipeTo(universalResponse.body, sinkAllBytes(opt.readMaxBytes, universalResponse.header.get(headerUnaryContentLength)), { propagateDownStreamError: false });
          if (compression) {
            responseBody = await compression.decompress(responseBody, opt.readMaxBytes);
          }
          if (isUnaryError) {
            throw errorFromJsonBytes(responseBody, appendHeaders(header2, trailer), unaryError);
          }
          return {
            stream: false,
            service: method.parent,
            method,
            header: header2,
            message: serialization.getO(opt.useBinaryFormat).parse(responseBody),
            trailer
          };
        }
      });
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      const serialization = createMethodSerializationLookup(method, opt.binaryOptions, opt.jsonOptions, opt);
      const endStreamSerialization = createEndStreamSerialization(opt.jsonOptions);
      timeoutMs = timeoutMs === void 0 ? opt.defaultTimeoutMs : timeoutMs <= 0 ? void 0 : timeoutMs;
      return runStreamingCall({
        interceptors: opt.interceptors,
        signal,
        timeoutMs,
        req: {
          stream: true,
          service: method.parent,
          method,
          requestMethod: "POST",
          url: createMethodUrl(opt.baseUrl, method),
          header: requestHeaderWithCompression(method.methodKind, opt.useBinaryFormat, timeoutMs, header, opt.acceptCompression, opt.sendCompression, true),
          contextValues: contextValues !== null && contextValues !== void 0 ? contextValues : createContextValues(),
          message: input
        },
        next: async (req) => {
          const uRes = await opt.httpClient({
            url: req.url,
            method: "POST",
            header: req.header,
            signal: req.signal,
            body: pipe(req.message, transformSerializeEnvelope(serialization.getI(opt.useBinaryFormat)), transformCompressEnvelope(opt.sendCompression, opt.compressMinBytes), transformJoinEnvelopes(), { propagateDownStreamError: true })
          });
          const { compression } = validateResponseWithCompression(method.methodKind, opt.acceptCompression, opt.useBinaryFormat, uRes.status, uRes.header);
          const res = Object.assign(Object.assign({}, req), { header: uRes.header, trailer: new Headers(), message: pipe(uRes.body, transformSplitEnvelope(opt.readMaxBytes), transformDecompressEnvelope(compression !== null && compression !== void 0 ? compression : null, opt.readMaxBytes), transformParseEnvelope(serialization.getO(opt.useBinaryFormat), endStreamFlag, endStreamSerialization), function(iterable) {
            return __asyncGenerator4(this, arguments, function* () {
              var _a2, e_1, _b, _c;
              let endStreamReceived = false;
              try {
                for (var _d2 = true, iterable_1 = __asyncValues4(iterable), iterable_1_1; iterable_1_1 = yield __await4(iterable_1.next()), _a2 = iterable_1_1.done, !_a2; _d2 = true) {
                  _c = iterable_1_1.value;
                  _d2 = false;
                  const chunk = _c;
                  if (chunk.end) {
                    if (endStreamReceived) {
                      throw new ConnectError("protocol error: received extra EndStreamResponse", Code.InvalidArgument);
                    }
                    endStreamReceived = true;
                    if (chunk.value.error) {
                      const error2 = chunk.value.error;
                      uRes.header.forEach((value, key) => {
                        error2.metadata.append(key, value);
                      });
                      throw error2;
                    }
                    chunk.value.metadata.forEach((value, key) => res.trailer.set(key, value));
                    continue;
                  }
                  if (endStreamReceived) {
                    throw new ConnectError("protocol error: received extra message after EndStreamResponse", Code.InvalidArgument);
                  }
                  yield yield __await4(chunk.value);
                }
              } catch (e_1_1) {
                e_1 = { error: e_1_1 };
              } finally {
                try {
                  if (!_d2 && !_a2 && (_b = iterable_1.return)) yield __await4(_b.call(iterable_1));
                } finally {
                  if (e_1) throw e_1.error;
                }
              }
              if (!endStreamReceived) {
                throw new ConnectError("protocol error: missing EndStreamResponse", Code.InvalidArgument);
              }
            });
          }, { propagateDownStreamError: true }) });
          return res;
        }
      });
    }
  };
}

// node_modules/@connectrpc/connect/dist/esm/protocol/universal-handler-client.js
function createUniversalHandlerClient(uHandlers) {
  const handlerMap = /* @__PURE__ */ new Map();
  for (const handler of uHandlers) {
    handlerMap.set(handler.requestPath, handler);
  }
  return async (uClientReq) => {
    var _a2, _b, _c;
    const pathname = new URL(uClientReq.url).pathname;
    const handler = handlerMap.get(pathname);
    if (!handler) {
      throw new ConnectError(`RouterHttpClient: no handler registered for ${pathname}`, Code.Unimplemented);
    }
    const reqSignal = (_a2 = uClientReq.signal) !== null && _a2 !== void 0 ? _a2 : new AbortController().signal;
    const uServerRes = await raceSignal(reqSignal, handler({
      body: (_b = uClientReq.body) !== null && _b !== void 0 ? _b : createAsyncIterable([]),
      httpVersion: "2.0",
      method: uClientReq.method,
      url: uClientReq.url,
      header: uClientReq.header,
      signal: reqSignal
    }));
    const body = (_c = uServerRes.body) !== null && _c !== void 0 ? _c : createAsyncIterable([]);
    return {
      body: pipe(body, (iterable) => {
        return {
          [Symbol.asyncIterator]() {
            const it = iterable[Symbol.asyncIterator]();
            const w = {
              next() {
                return raceSignal(reqSignal, it.next());
              }
            };
            if (it.throw !== void 0) {
              w.throw = (e) => it.throw(e);
            }
            if (it.return !== void 0) {
              w.return = (value) => it.return(value);
            }
            return w;
          }
        };
      }),
      header: new Headers(uServerRes.header),
      status: uServerRes.status,
      trailer: new Headers(uServerRes.trailer)
    };
  };
}
function raceSignal(signal, promise) {
  let cleanup;
  const signalPromise = new Promise((_, reject) => {
    const onAbort = () => reject(getAbortSignalReason(signal));
    if (signal.aborted) {
      return onAbort();
    }
    signal.addEventListener("abort", onAbort);
    cleanup = () => signal.removeEventListener("abort", onAbort);
  });
  return Promise.race([signalPromise, promise]).finally(cleanup);
}

// node_modules/@connectrpc/connect/dist/esm/router-transport.js
function createRouterTransport(routes, options) {
  var _a2, _b;
  const router = createConnectRouter(Object.assign(Object.assign({}, (_a2 = options === null || options === void 0 ? void 0 : options.router) !== null && _a2 !== void 0 ? _a2 : {}), { connect: true }));
  routes(router);
  return createTransport(Object.assign({ httpClient: createUniversalHandlerClient(router.handlers), baseUrl: "https://in-memory", useBinaryFormat: true, interceptors: [], acceptCompression: [], sendCompression: null, compressMinBytes: Number.MAX_SAFE_INTEGER, readMaxBytes: Number.MAX_SAFE_INTEGER, writeMaxBytes: Number.MAX_SAFE_INTEGER }, (_b = options === null || options === void 0 ? void 0 : options.transport) !== null && _b !== void 0 ? _b : {}));
}

// gen/src/svc/api/v1/errors_pb.js
var file_svc_api_v1_errors = /* @__PURE__ */ fileDesc("ChdzdmMvYXBpL3YxL2Vycm9ycy5wcm90bxIKc3ZjLmFwaS52MSJFCgtFcnJvckRldGFpbBIMCgRjb2RlGAEgASgJEigKB2RldGFpbHMYAiABKAsyFy5nb29nbGUucHJvdG9idWYuU3RydWN0YgZwcm90bzM", [file_google_protobuf_struct]);
var ErrorDetailSchema = /* @__PURE__ */ messageDesc(file_svc_api_v1_errors, 0);

// lib/src/errors/store-outage.ts
var OUTAGE_SQLSTATES = /* @__PURE__ */ new Set([
  "57014",
  "55P03",
  "40P01",
  "40001",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006"
]);
var PG_CLIENT_OUTAGES = [
  "timeout exceeded when trying to connect",
  "Query read timeout",
  "Connection terminated",
  "Client has encountered a connection error"
];
var REDIS_CLIENT_OUTAGES = /* @__PURE__ */ new Set([
  "ClientOfflineError",
  "ClientClosedError",
  "ConnectionTimeoutError",
  "SocketTimeoutError",
  "SocketClosedUnexpectedlyError",
  "TimeoutError"
]);
var SOCKET_OUTAGES = /* @__PURE__ */ new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH"
]);
function isStoreOutage(err) {
  if (err instanceof DeadlineExceeded) return true;
  const e = err;
  if (!e || typeof e !== "object") return false;
  const code = typeof e.code === "string" ? e.code : void 0;
  if (code && (OUTAGE_SQLSTATES.has(code) || SOCKET_OUTAGES.has(code))) return true;
  if (REDIS_CLIENT_OUTAGES.has(err.constructor.name)) return true;
  const message2 = typeof e.message === "string" ? e.message : "";
  if (PG_CLIENT_OUTAGES.some((m) => message2.startsWith(m))) return true;
  return e.cause !== void 0 && e.cause !== err && isStoreOutage(e.cause);
}

// lib/src/errors/index.ts
function svcError(connectCode, code, message2, details = {}, options = {}) {
  const metadata = new Headers(options.headers ?? {});
  return new ConnectError(
    message2,
    connectCode,
    metadata,
    [{ desc: ErrorDetailSchema, value: { code, details } }],
    options.cause
  );
}
function errorDetailOf(err) {
  const found = err.findDetails(ErrorDetailSchema)[0];
  if (found) return { code: found.code, details: found.details ?? {} };
  return { code: defaultCodeName(err.code), details: {} };
}
function defaultCodeName(code) {
  const name = Code[code] ?? "unknown";
  return name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}
function invalidField(field, message2, extra = {}) {
  return svcError(Code.InvalidArgument, "invalid_argument", message2, { field, ...extra });
}

// lib/src/server/complete-service.ts
var notBuilt = /* @__PURE__ */ new Map();
function notBuiltCapability(method) {
  return notBuilt.get(method);
}
function completeService(service, impl) {
  const full = { ...impl };
  for (const method of service.methods) {
    if (full[method.localName]) {
      notBuilt.delete(method);
      continue;
    }
    const what = getOption(method, capability) || `${service.typeName}.${method.name}`;
    notBuilt.set(method, what);
    full[method.localName] = () => {
      throw svcError(
        Code.Unimplemented,
        "not_implemented",
        `${what} is not built yet: ${method.name} answers 501 until it is`,
        {
          capability: what,
          rpc: `${service.typeName}/${method.name}`
        }
      );
    };
  }
  return full;
}

// gen/src/grpc/health/v1/health_pb.js
var file_grpc_health_v1_health = /* @__PURE__ */ fileDesc("ChtncnBjL2hlYWx0aC92MS9oZWFsdGgucHJvdG8SDmdycGMuaGVhbHRoLnYxIiUKEkhlYWx0aENoZWNrUmVxdWVzdBIPCgdzZXJ2aWNlGAEgASgJIqkBChNIZWFsdGhDaGVja1Jlc3BvbnNlEkEKBnN0YXR1cxgBIAEoDjIxLmdycGMuaGVhbHRoLnYxLkhlYWx0aENoZWNrUmVzcG9uc2UuU2VydmluZ1N0YXR1cyJPCg1TZXJ2aW5nU3RhdHVzEgsKB1VOS05PV04QABILCgdTRVJWSU5HEAESDwoLTk9UX1NFUlZJTkcQAhITCg9TRVJWSUNFX1VOS05PV04QAzKuAQoGSGVhbHRoElAKBUNoZWNrEiIuZ3JwYy5oZWFsdGgudjEuSGVhbHRoQ2hlY2tSZXF1ZXN0GiMuZ3JwYy5oZWFsdGgudjEuSGVhbHRoQ2hlY2tSZXNwb25zZRJSCgVXYXRjaBIiLmdycGMuaGVhbHRoLnYxLkhlYWx0aENoZWNrUmVxdWVzdBojLmdycGMuaGVhbHRoLnYxLkhlYWx0aENoZWNrUmVzcG9uc2UwAWIGcHJvdG8z");
var HealthCheckResponseSchema = /* @__PURE__ */ messageDesc(file_grpc_health_v1_health, 1);
var HealthCheckResponse_ServingStatusSchema = /* @__PURE__ */ enumDesc(file_grpc_health_v1_health, 1, 0);
var HealthCheckResponse_ServingStatus = /* @__PURE__ */ tsEnum(HealthCheckResponse_ServingStatusSchema);
var Health = /* @__PURE__ */ serviceDesc(file_grpc_health_v1_health, 0);

// lib/src/server/health.ts
var LIVENESS_SERVICE = "liveness";
function healthRoutes(serviceNames, ready2) {
  const known = /* @__PURE__ */ new Set(["", ...serviceNames]);
  const check = async (service) => {
    if (service === LIVENESS_SERVICE)
      return create(HealthCheckResponseSchema, { status: HealthCheckResponse_ServingStatus.SERVING });
    if (!known.has(service))
      return create(HealthCheckResponseSchema, { status: HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN });
    const ok = await ready2().catch(() => false);
    return create(HealthCheckResponseSchema, { status: ok ? HealthCheckResponse_ServingStatus.SERVING : HealthCheckResponse_ServingStatus.NOT_SERVING });
  };
  return (router) => router.service(Health, {
    check: (req) => check(req.service),
    async *watch(req) {
      yield await check(req.service);
    }
  });
}

// lib/src/server/grpc-server.ts
import http22 from "node:http2";

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc/validate-trailer.js
function validateTrailer(trailer, header) {
  const err = findTrailerError(trailer);
  if (err) {
    header.forEach((value, key) => {
      err.metadata.append(key, value);
    });
    throw err;
  }
  if (!header.has(headerGrpcStatus) && !trailer.has(headerGrpcStatus)) {
    throw new ConnectError("protocol error: missing status", Code.Internal);
  }
}

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc/http-status.js
function codeFromHttpStatus2(httpStatus) {
  switch (httpStatus) {
    case 400:
      return Code.Internal;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.Unimplemented;
    case 429:
      return Code.Unavailable;
    case 502:
      return Code.Unavailable;
    case 503:
      return Code.Unavailable;
    case 504:
      return Code.Unavailable;
    default:
      return Code.Unknown;
  }
}

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc/request-header.js
function requestHeader2(useBinaryFormat, timeoutMs, userProvidedHeaders) {
  const result = new Headers(userProvidedHeaders !== null && userProvidedHeaders !== void 0 ? userProvidedHeaders : {});
  result.set(headerContentType, useBinaryFormat ? contentTypeProto2 : contentTypeJson2);
  if (!result.has(headerUserAgent)) {
    result.set(headerUserAgent, "connect-es/2.1.2");
  }
  if (timeoutMs !== void 0) {
    result.set(headerTimeout, `${timeoutMs}m`);
  }
  result.set("Te", "trailers");
  return result;
}
function requestHeaderWithCompression2(useBinaryFormat, timeoutMs, userProvidedHeaders, acceptCompression, sendCompression) {
  const result = requestHeader2(useBinaryFormat, timeoutMs, userProvidedHeaders);
  if (sendCompression != null) {
    result.set(headerEncoding, sendCompression.name);
  }
  if (acceptCompression.length > 0) {
    result.set(headerAcceptEncoding, acceptCompression.map((c) => c.name).join(","));
  }
  return result;
}

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc/validate-response.js
function validateResponse2(status, headers) {
  if (status != 200) {
    throw new ConnectError(`HTTP ${status}`, codeFromHttpStatus2(status), headers);
  }
  const mimeType = headers.get(headerContentType);
  const parsedType = parseContentType2(mimeType);
  if (parsedType == void 0) {
    throw new ConnectError(`unsupported content type ${mimeType}`, Code.Unknown);
  }
  return {
    foundStatus: headers.has(headerGrpcStatus),
    headerError: findTrailerError(headers)
  };
}
function validateResponseWithCompression2(acceptCompression, status, headers) {
  const { foundStatus, headerError } = validateResponse2(status, headers);
  let compression;
  const encoding = headers.get(headerEncoding);
  if (encoding !== null && encoding.toLowerCase() !== "identity") {
    compression = acceptCompression.find((c) => c.name === encoding);
    if (!compression) {
      throw new ConnectError(`unsupported response encoding "${encoding}"`, Code.Internal, headers);
    }
  }
  return {
    foundStatus,
    compression,
    headerError
  };
}

// node_modules/@connectrpc/connect/dist/esm/protocol-grpc/transport.js
var __asyncValues5 = function(o) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var m = o[Symbol.asyncIterator], i;
  return m ? m.call(o) : (o = typeof __values === "function" ? __values(o) : o[Symbol.iterator](), i = {}, verb("next"), verb("throw"), verb("return"), i[Symbol.asyncIterator] = function() {
    return this;
  }, i);
  function verb(n) {
    i[n] = o[n] && function(v) {
      return new Promise(function(resolve, reject) {
        v = o[n](v), settle(resolve, reject, v.done, v.value);
      });
    };
  }
  function settle(resolve, reject, d, v) {
    Promise.resolve(v).then(function(v2) {
      resolve({ value: v2, done: d });
    }, reject);
  }
};
var __await5 = function(v) {
  return this instanceof __await5 ? (this.v = v, this) : new __await5(v);
};
var __asyncDelegator4 = function(o) {
  var i, p;
  return i = {}, verb("next"), verb("throw", function(e) {
    throw e;
  }), verb("return"), i[Symbol.iterator] = function() {
    return this;
  }, i;
  function verb(n, f) {
    i[n] = o[n] ? function(v) {
      return (p = !p) ? { value: __await5(o[n](v)), done: false } : f ? f(v) : v;
    } : f;
  }
};
var __asyncGenerator5 = function(thisArg, _arguments, generator) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var g = generator.apply(thisArg, _arguments || []), i, q = [];
  return i = Object.create((typeof AsyncIterator === "function" ? AsyncIterator : Object).prototype), verb("next"), verb("throw"), verb("return", awaitReturn), i[Symbol.asyncIterator] = function() {
    return this;
  }, i;
  function awaitReturn(f) {
    return function(v) {
      return Promise.resolve(v).then(f, reject);
    };
  }
  function verb(n, f) {
    if (g[n]) {
      i[n] = function(v) {
        return new Promise(function(a, b) {
          q.push([n, v, a, b]) > 1 || resume(n, v);
        });
      };
      if (f) i[n] = f(i[n]);
    }
  }
  function resume(n, v) {
    try {
      step(g[n](v));
    } catch (e) {
      settle(q[0][3], e);
    }
  }
  function step(r) {
    r.value instanceof __await5 ? Promise.resolve(r.value.v).then(fulfill, reject) : settle(q[0][2], r);
  }
  function fulfill(value) {
    resume("next", value);
  }
  function reject(value) {
    resume("throw", value);
  }
  function settle(f, v) {
    if (f(v), q.shift(), q.length) resume(q[0][0], q[0][1]);
  }
};
function createTransport2(opt) {
  return {
    async unary(method, signal, timeoutMs, header, message2, contextValues) {
      const serialization = createMethodSerializationLookup(method, opt.binaryOptions, opt.jsonOptions, opt);
      timeoutMs = timeoutMs === void 0 ? opt.defaultTimeoutMs : timeoutMs <= 0 ? void 0 : timeoutMs;
      return await runUnaryCall({
        interceptors: opt.interceptors,
        signal,
        timeoutMs,
        req: {
          stream: false,
          service: method.parent,
          method,
          requestMethod: "POST",
          url: createMethodUrl(opt.baseUrl, method),
          header: requestHeaderWithCompression2(opt.useBinaryFormat, timeoutMs, header, opt.acceptCompression, opt.sendCompression),
          contextValues: contextValues !== null && contextValues !== void 0 ? contextValues : createContextValues(),
          message: message2
        },
        next: async (req) => {
          const uRes = await opt.httpClient({
            url: req.url,
            method: "POST",
            header: req.header,
            signal: req.signal,
            body: pipe(createAsyncIterable([req.message]), transformSerializeEnvelope(serialization.getI(opt.useBinaryFormat)), transformCompressEnvelope(opt.sendCompression, opt.compressMinBytes), transformJoinEnvelopes(), {
              propagateDownStreamError: true
            })
          });
          const { compression, headerError } = validateResponseWithCompression2(opt.acceptCompression, uRes.status, uRes.header);
          const message3 = await pipeTo(uRes.body, transformSplitEnvelope(opt.readMaxBytes), transformDecompressEnvelope(compression !== null && compression !== void 0 ? compression : null, opt.readMaxBytes), transformParseEnvelope(serialization.getO(opt.useBinaryFormat)), async (iterable) => {
            var _a2, e_1, _b, _c;
            let message4;
            try {
              for (var _d2 = true, iterable_1 = __asyncValues5(iterable), iterable_1_1; iterable_1_1 = await iterable_1.next(), _a2 = iterable_1_1.done, !_a2; _d2 = true) {
                _c = iterable_1_1.value;
                _d2 = false;
                const chunk = _c;
                if (message4 !== void 0) {
                  throw new ConnectError("protocol error: received extra output message for unary method", Code.Unimplemented);
                }
                message4 = chunk;
              }
            } catch (e_1_1) {
              e_1 = { error: e_1_1 };
            } finally {
              try {
                if (!_d2 && !_a2 && (_b = iterable_1.return)) await _b.call(iterable_1);
              } finally {
                if (e_1) throw e_1.error;
              }
            }
            return message4;
          }, { propagateDownStreamError: false });
          validateTrailer(uRes.trailer, uRes.header);
          if (message3 === void 0) {
            if (headerError) {
              throw headerError;
            }
            throw new ConnectError("protocol error: missing output message for unary method", uRes.trailer.has(headerGrpcStatus) ? Code.Unimplemented : Code.Unknown);
          }
          if (headerError) {
            throw new ConnectError("protocol error: received output message for unary method with error status", Code.Unknown);
          }
          return {
            stream: false,
            service: method.parent,
            method,
            header: uRes.header,
            message: message3,
            trailer: uRes.trailer
          };
        }
      });
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      const serialization = createMethodSerializationLookup(method, opt.binaryOptions, opt.jsonOptions, opt);
      timeoutMs = timeoutMs === void 0 ? opt.defaultTimeoutMs : timeoutMs <= 0 ? void 0 : timeoutMs;
      return runStreamingCall({
        interceptors: opt.interceptors,
        signal,
        timeoutMs,
        req: {
          stream: true,
          service: method.parent,
          method,
          requestMethod: "POST",
          url: createMethodUrl(opt.baseUrl, method),
          header: requestHeaderWithCompression2(opt.useBinaryFormat, timeoutMs, header, opt.acceptCompression, opt.sendCompression),
          contextValues: contextValues !== null && contextValues !== void 0 ? contextValues : createContextValues(),
          message: input
        },
        next: async (req) => {
          const uRes = await opt.httpClient({
            url: req.url,
            method: "POST",
            header: req.header,
            signal: req.signal,
            body: pipe(req.message, transformSerializeEnvelope(serialization.getI(opt.useBinaryFormat)), transformCompressEnvelope(opt.sendCompression, opt.compressMinBytes), transformJoinEnvelopes(), { propagateDownStreamError: true })
          });
          const { compression, foundStatus, headerError } = validateResponseWithCompression2(opt.acceptCompression, uRes.status, uRes.header);
          if (headerError) {
            throw headerError;
          }
          const res = Object.assign(Object.assign({}, req), { header: uRes.header, trailer: uRes.trailer, message: pipe(uRes.body, transformSplitEnvelope(opt.readMaxBytes), transformDecompressEnvelope(compression !== null && compression !== void 0 ? compression : null, opt.readMaxBytes), transformParseEnvelope(serialization.getO(opt.useBinaryFormat)), function(iterable) {
            return __asyncGenerator5(this, arguments, function* () {
              yield __await5(yield* __asyncDelegator4(__asyncValues5(iterable)));
              if (!foundStatus) {
                validateTrailer(uRes.trailer, uRes.header);
              }
            });
          }, { propagateDownStreamError: true }) });
          return res;
        }
      });
    }
  };
}

// node_modules/@connectrpc/connect-node/dist/esm/compression.js
import * as zlib from "node:zlib";
import { promisify } from "node:util";

// node_modules/@connectrpc/connect-node/dist/esm/node-error.js
function connectErrorFromNodeReason(reason) {
  let code = Code.Internal;
  const chain = unwrapNodeErrorChain(reason).map(getNodeErrorProps);
  if (chain.some((p) => p.code == "ERR_STREAM_WRITE_AFTER_END")) {
    code = Code.Aborted;
  } else if (chain.some((p) => p.code == "ERR_STREAM_DESTROYED" || p.code == "ERR_HTTP2_INVALID_STREAM" || p.code == "ECONNRESET")) {
    code = Code.Aborted;
  } else if (chain.some((p) => p.code == "ETIMEDOUT" || p.code == "ENOTFOUND" || p.code == "EAI_AGAIN" || p.code == "ECONNREFUSED")) {
    code = Code.Unavailable;
  }
  const ce = ConnectError.from(reason, code);
  if (ce !== reason) {
    ce.cause = reason;
  }
  return ce;
}
function unwrapNodeErrorChain(reason) {
  const chain = [];
  for (; ; ) {
    if (!(reason instanceof Error)) {
      break;
    }
    if (chain.includes(reason)) {
      break;
    }
    chain.push(reason);
    if (!("cause" in reason)) {
      break;
    }
    reason = reason.cause;
  }
  return chain;
}
function getNodeErrorProps(reason) {
  const props = {};
  if (reason instanceof Error) {
    if ("code" in reason && typeof reason.code == "string") {
      props.code = reason.code;
    }
    if ("syscall" in reason && typeof reason.syscall == "string") {
      props.syscall = reason.syscall;
    }
  }
  return props;
}
function connectErrorFromH2ResetCode(rstCode) {
  switch (rstCode) {
    case H2Code.PROTOCOL_ERROR:
    case H2Code.INTERNAL_ERROR:
    case H2Code.FLOW_CONTROL_ERROR:
    case H2Code.SETTINGS_TIMEOUT:
    case H2Code.FRAME_SIZE_ERROR:
    case H2Code.COMPRESSION_ERROR:
    case H2Code.CONNECT_ERROR:
      return new ConnectError(`http/2 stream closed with error code ${H2Code[rstCode]} (0x${rstCode.toString(16)})`, Code.Internal);
    case H2Code.REFUSED_STREAM:
      return new ConnectError(`http/2 stream closed with error code ${H2Code[rstCode]} (0x${rstCode.toString(16)})`, Code.Unavailable);
    case H2Code.CANCEL:
      return new ConnectError(`http/2 stream closed with error code ${H2Code[rstCode]} (0x${rstCode.toString(16)})`, Code.Canceled);
    case H2Code.ENHANCE_YOUR_CALM:
      return new ConnectError(`http/2 stream closed with error code ${H2Code[rstCode]} (0x${rstCode.toString(16)})`, Code.ResourceExhausted);
    case H2Code.INADEQUATE_SECURITY:
      return new ConnectError(`http/2 stream closed with error code ${H2Code[rstCode]} (0x${rstCode.toString(16)})`, Code.PermissionDenied);
    case H2Code.HTTP_1_1_REQUIRED:
      return new ConnectError(`http/2 stream closed with error code ${H2Code[rstCode]} (0x${rstCode.toString(16)})`, Code.PermissionDenied);
    default:
      break;
  }
  return void 0;
}
var H2Code;
(function(H2Code2) {
  H2Code2[H2Code2["PROTOCOL_ERROR"] = 1] = "PROTOCOL_ERROR";
  H2Code2[H2Code2["INTERNAL_ERROR"] = 2] = "INTERNAL_ERROR";
  H2Code2[H2Code2["FLOW_CONTROL_ERROR"] = 3] = "FLOW_CONTROL_ERROR";
  H2Code2[H2Code2["SETTINGS_TIMEOUT"] = 4] = "SETTINGS_TIMEOUT";
  H2Code2[H2Code2["STREAM_CLOSED"] = 5] = "STREAM_CLOSED";
  H2Code2[H2Code2["FRAME_SIZE_ERROR"] = 6] = "FRAME_SIZE_ERROR";
  H2Code2[H2Code2["REFUSED_STREAM"] = 7] = "REFUSED_STREAM";
  H2Code2[H2Code2["CANCEL"] = 8] = "CANCEL";
  H2Code2[H2Code2["COMPRESSION_ERROR"] = 9] = "COMPRESSION_ERROR";
  H2Code2[H2Code2["CONNECT_ERROR"] = 10] = "CONNECT_ERROR";
  H2Code2[H2Code2["ENHANCE_YOUR_CALM"] = 11] = "ENHANCE_YOUR_CALM";
  H2Code2[H2Code2["INADEQUATE_SECURITY"] = 12] = "INADEQUATE_SECURITY";
  H2Code2[H2Code2["HTTP_1_1_REQUIRED"] = 13] = "HTTP_1_1_REQUIRED";
})(H2Code || (H2Code = {}));

// node_modules/@connectrpc/connect-node/dist/esm/compression.js
var gzip2 = promisify(zlib.gzip);
var gunzip2 = promisify(zlib.gunzip);
var brotliCompress2 = promisify(zlib.brotliCompress);
var brotliDecompress2 = promisify(zlib.brotliDecompress);
var compressionGzip = {
  name: "gzip",
  compress(bytes) {
    return asUint8ArrayArrayBuffer(gzip2(bytes, {}));
  },
  decompress(bytes, readMaxBytes) {
    if (bytes.length == 0) {
      return Promise.resolve(new Uint8Array(0));
    }
    return asUint8ArrayArrayBuffer(wrapZLibErrors(gunzip2(bytes, {
      maxOutputLength: readMaxBytes
    }), readMaxBytes));
  }
};
var compressionBrotli = {
  name: "br",
  compress(bytes) {
    return asUint8ArrayArrayBuffer(brotliCompress2(bytes, {}));
  },
  decompress(bytes, readMaxBytes) {
    if (bytes.length == 0) {
      return Promise.resolve(new Uint8Array(0));
    }
    return asUint8ArrayArrayBuffer(wrapZLibErrors(brotliDecompress2(bytes, {
      maxOutputLength: readMaxBytes
    }), readMaxBytes));
  }
};
function asUint8ArrayArrayBuffer(bytes) {
  return bytes.then((b) => {
    if (b.buffer instanceof ArrayBuffer) {
      return b;
    }
    return new Uint8Array(b);
  });
}
function wrapZLibErrors(promise, readMaxBytes) {
  return promise.catch((e) => {
    var _a2;
    const props = getNodeErrorProps(e);
    let code = Code.Internal;
    let message2 = "decompression failed";
    switch (props.code) {
      case "ERR_BUFFER_TOO_LARGE":
        code = Code.ResourceExhausted;
        message2 = `message is larger than configured readMaxBytes ${readMaxBytes} after decompression`;
        break;
      case "Z_DATA_ERROR":
      case "ERR_PADDING_2":
        code = Code.InvalidArgument;
        break;
      default:
        if ((_a2 = props.code) === null || _a2 === void 0 ? void 0 : _a2.startsWith("ERR__ERROR_FORMAT_")) {
          code = Code.InvalidArgument;
        }
        break;
    }
    return Promise.reject(new ConnectError(message2, code, void 0, void 0, e));
  });
}

// node_modules/@connectrpc/connect-node/dist/esm/node-universal-client.js
import * as http from "node:http";
import * as https from "node:https";

// node_modules/@connectrpc/connect-node/dist/esm/node-universal-header.js
function nodeHeaderToWebHeader(nodeHeaders) {
  const header = new Headers();
  for (const [k, v] of Object.entries(nodeHeaders)) {
    if (k.startsWith(":")) {
      continue;
    }
    if (v === void 0) {
      continue;
    }
    if (typeof v == "string") {
      header.append(k, v);
    } else if (typeof v == "number") {
      header.append(k, String(v));
    } else {
      for (const e of v) {
        header.append(k, e);
      }
    }
  }
  return header;
}
function webHeaderToNodeHeaders(headersInit, defaultNodeHeaders) {
  if (headersInit === void 0 && defaultNodeHeaders === void 0) {
    return void 0;
  }
  const o = /* @__PURE__ */ Object.create(null);
  if (defaultNodeHeaders !== void 0) {
    if (Array.isArray(defaultNodeHeaders)) {
      for (let i = 0; i + 1 < defaultNodeHeaders.length; i += 2) {
        const key = defaultNodeHeaders[i];
        const value = defaultNodeHeaders[i + 1];
        if (Array.isArray(o[key])) {
          o[key].push(value);
        } else if (typeof o[key] == "string") {
          o[key] = [o[key], value];
        } else {
          o[key] = value;
        }
      }
    } else {
      for (const [key, value] of Object.entries(defaultNodeHeaders)) {
        if (Array.isArray(value)) {
          o[key] = value.concat();
        } else if (value !== void 0) {
          o[key] = value;
        }
      }
    }
  }
  if (headersInit !== void 0) {
    if (Array.isArray(headersInit)) {
      for (const [key, value] of headersInit) {
        appendWebHeader(o, key, value);
      }
    } else if ("forEach" in headersInit) {
      if (typeof headersInit.forEach == "function") {
        headersInit.forEach((value, key) => {
          appendWebHeader(o, key, value);
        });
      }
    } else {
      for (const [key, value] of Object.entries(headersInit)) {
        appendWebHeader(o, key, value);
      }
    }
  }
  return o;
}
function appendWebHeader(o, key, value) {
  key = key.toLowerCase();
  const existing = o[key];
  if (Array.isArray(existing)) {
    existing.push(value);
  } else if (existing === void 0) {
    o[key] = value;
  } else {
    o[key] = [existing.toString(), value];
  }
}

// node_modules/@connectrpc/connect-node/dist/esm/http2-session-manager.js
import * as http2 from "node:http2";
var Http2SessionManager = class {
  /**
   * The current state of the connection:
   *
   * - "closed"
   *   The connection is closed, or no connection has been opened yet.
   * - connecting
   *   Currently establishing a connection.
   *
   * - "open"
   *   A connection is open and has open streams. PING frames are sent every
   *   pingIntervalMs, unless a stream received data.
   *   If a PING frame is not responded to within pingTimeoutMs, the connection
   *   and all open streams close.
   *
   * - "idle"
   *   A connection is open, but it does not have any open streams.
   *   If pingIdleConnection is enabled, PING frames are used to keep the
   *   connection alive, similar to an "open" connection.
   *   If a connection is idle for longer than idleConnectionTimeoutMs, it closes.
   *   If a request is made on an idle connection that has not been used for
   *   longer than pingIntervalMs, the connection is verified.
   *
   * - "verifying"
   *   Verifying a connection after a long period of inactivity before issuing a
   *   request. A PING frame is sent, and if it times out within pingTimeoutMs, a
   *   new connection is opened.
   *
   * - "error"
   *   The connection is closed because of a transient error. A connection
   *   may have failed to reach the host, or the connection may have died,
   *   or it may have been aborted.
   */
  state() {
    if (this.s.t == "ready") {
      if (this.verifying !== void 0) {
        return "verifying";
      }
      return this.s.streamCount() > 0 ? "open" : "idle";
    }
    return this.s.t;
  }
  /**
   * Returns the error object if the connection is in the "error" state,
   * `undefined` otherwise.
   */
  error() {
    if (this.s.t == "error") {
      return this.s.reason;
    }
    return void 0;
  }
  constructor(url, pingOptions, http2SessionOptions) {
    var _a2, _b, _c, _d2;
    this.s = closed();
    this.shuttingDown = [];
    this.authority = new URL(url).origin;
    this.http2SessionOptions = http2SessionOptions;
    this.options = {
      pingIntervalMs: (_a2 = pingOptions === null || pingOptions === void 0 ? void 0 : pingOptions.pingIntervalMs) !== null && _a2 !== void 0 ? _a2 : Number.POSITIVE_INFINITY,
      pingTimeoutMs: (_b = pingOptions === null || pingOptions === void 0 ? void 0 : pingOptions.pingTimeoutMs) !== null && _b !== void 0 ? _b : 1e3 * 15,
      pingIdleConnection: (_c = pingOptions === null || pingOptions === void 0 ? void 0 : pingOptions.pingIdleConnection) !== null && _c !== void 0 ? _c : false,
      idleConnectionTimeoutMs: (_d2 = pingOptions === null || pingOptions === void 0 ? void 0 : pingOptions.idleConnectionTimeoutMs) !== null && _d2 !== void 0 ? _d2 : 1e3 * 60 * 15
    };
  }
  /**
   * Open a connection if none exists, verify an existing connection if
   * necessary.
   */
  async connect() {
    try {
      const ready2 = await this.gotoReady();
      return ready2.streamCount() > 0 ? "open" : "idle";
    } catch (e) {
      return "error";
    }
  }
  /**
   * Issue a request.
   *
   * This method automatically opens a connection if none exists, and verifies
   * an existing connection if necessary. It calls http2.ClientHttp2Session.request(),
   * and keeps track of all open http2.ClientHttp2Stream.
   *
   * Clients must call notifyResponseByteRead() whenever they successfully read
   * data from the http2.ClientHttp2Stream.
   */
  async request(method, path, headers, options) {
    for (; ; ) {
      const ready2 = await this.gotoReady();
      try {
        const stream = ready2.conn.request(Object.assign(Object.assign({}, headers), { ":method": method, ":path": path }), options);
        ready2.registerRequest(stream);
        return stream;
      } catch (e) {
        if (ready2.conn.closed || ready2.conn.destroyed) {
          continue;
        }
        throw e;
      }
    }
  }
  /**
   * Notify the manager of a successful read from a http2.ClientHttp2Stream.
   *
   * Clients must call this function whenever they successfully read data from
   * a http2.ClientHttp2Stream obtained from request(). This informs the
   * keep-alive logic that the connection is alive, and prevents it from sending
   * unnecessary PING frames.
   */
  notifyResponseByteRead(stream) {
    if (this.s.t == "ready") {
      this.s.responseByteRead(stream);
    }
    for (const s of this.shuttingDown) {
      s.responseByteRead(stream);
    }
  }
  /**
   * If there is an open connection, close it. This also closes any open streams.
   */
  abort(reason) {
    var _a2, _b, _c;
    const err = reason !== null && reason !== void 0 ? reason : new ConnectError("connection aborted", Code.Canceled);
    (_b = (_a2 = this.s).abort) === null || _b === void 0 ? void 0 : _b.call(_a2, err);
    for (const s of this.shuttingDown) {
      (_c = s.abort) === null || _c === void 0 ? void 0 : _c.call(s, err);
    }
    this.setState(closedOrError(err));
  }
  async gotoReady() {
    if (this.s.t == "ready") {
      if (this.s.isShuttingDown() || this.s.conn.closed || this.s.conn.destroyed) {
        this.setState(connect2(this.authority, this.http2SessionOptions));
      } else if (this.s.requiresVerify()) {
        await this.verify(this.s);
      }
    } else if (this.s.t == "closed" || this.s.t == "error") {
      this.setState(connect2(this.authority, this.http2SessionOptions));
    }
    while (this.s.t !== "ready") {
      if (this.s.t === "error") {
        throw this.s.reason;
      }
      if (this.s.t === "connecting") {
        await this.s.conn;
      }
    }
    return this.s;
  }
  setState(state) {
    var _a2, _b;
    (_b = (_a2 = this.s).onExitState) === null || _b === void 0 ? void 0 : _b.call(_a2);
    if (this.s.t == "ready" && this.s.isShuttingDown()) {
      const sd = this.s;
      this.shuttingDown.push(sd);
      sd.onClose = sd.onError = () => {
        const i = this.shuttingDown.indexOf(sd);
        if (i !== -1) {
          this.shuttingDown.splice(i, 1);
        }
      };
    }
    switch (state.t) {
      case "connecting":
        state.conn.then((value) => {
          this.setState(ready(value, this.options));
        }, (reason) => {
          this.setState(closedOrError(reason));
        });
        break;
      case "ready":
        state.onClose = () => this.setState(closed());
        state.onError = (err) => this.setState(closedOrError(err));
        break;
      case "closed":
        break;
      case "error":
        break;
    }
    this.s = state;
  }
  verify(stateReady) {
    if (this.verifying !== void 0) {
      return this.verifying;
    }
    this.verifying = stateReady.verify().then((success) => {
      if (success) {
        return;
      }
      this.setState(connect2(this.authority, this.http2SessionOptions));
    }, (reason) => {
      this.setState(closedOrError(reason));
    }).finally(() => {
      this.verifying = void 0;
    });
    return this.verifying;
  }
};
function closed() {
  return {
    t: "closed"
  };
}
function error(reason) {
  return {
    t: "error",
    reason
  };
}
function closedOrError(reason) {
  const isCancel = reason instanceof ConnectError && ConnectError.from(reason).code == Code.Canceled;
  return isCancel ? closed() : error(reason);
}
function connect2(authority, http2SessionOptions) {
  let resolve;
  let reject;
  const conn = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const newConn = http2.connect(authority, http2SessionOptions);
  newConn.on("connect", onConnect);
  newConn.on("error", onError);
  function onConnect() {
    resolve === null || resolve === void 0 ? void 0 : resolve(newConn);
    cleanup();
  }
  function onError(err) {
    reject === null || reject === void 0 ? void 0 : reject(connectErrorFromNodeReason(err));
    cleanup();
  }
  function cleanup() {
    newConn.off("connect", onConnect);
    newConn.off("error", onError);
  }
  return {
    t: "connecting",
    conn,
    abort(reason) {
      if (!newConn.destroyed) {
        newConn.destroy(void 0, http2.constants.NGHTTP2_CANCEL);
      }
      reject === null || reject === void 0 ? void 0 : reject(reason);
    },
    onExitState() {
      cleanup();
    }
  };
}
function ready(conn, options) {
  assertSessionOpen(conn);
  conn.unref();
  let lastAliveAt = Date.now();
  let streamCount = 0;
  let pingIntervalId;
  let pingTimeoutId;
  let receivedGoAway = false;
  let receivedGoAwayEnhanceYourCalmTooManyPings = false;
  let idleTimeoutId;
  resetIdleTimeout();
  const state = {
    t: "ready",
    conn,
    streamCount() {
      return streamCount;
    },
    requiresVerify() {
      const elapsedMs = Date.now() - lastAliveAt;
      return elapsedMs > options.pingIntervalMs;
    },
    isShuttingDown() {
      return receivedGoAway;
    },
    onClose: void 0,
    onError: void 0,
    registerRequest(stream) {
      streamCount++;
      if (streamCount == 1) {
        conn.ref();
        resetPingInterval();
        stopIdleTimeout();
      }
      stream.once("response", () => {
        lastAliveAt = Date.now();
        resetPingInterval();
      });
      stream.once("close", () => {
        streamCount--;
        if (streamCount == 0) {
          conn.unref();
          resetPingInterval();
          resetIdleTimeout();
        }
      });
    },
    responseByteRead(stream) {
      if (stream.session !== conn) {
        return;
      }
      if (conn.closed || conn.destroyed) {
        return;
      }
      if (streamCount <= 0) {
        return;
      }
      lastAliveAt = Date.now();
      resetPingInterval();
    },
    verify() {
      conn.ref();
      return new Promise((resolve) => {
        const onError2 = () => {
          resolve(false);
        };
        commonPing(() => {
          if (streamCount == 0)
            conn.unref();
          conn.off("error", onError2);
          resolve(true);
        });
        conn.once("error", onError2);
      });
    },
    abort(reason) {
      if (!conn.destroyed) {
        conn.once("error", () => {
        });
        conn.destroy(reason, http2.constants.NGHTTP2_CANCEL);
      }
    },
    onExitState() {
      if (state.isShuttingDown()) {
        return;
      }
      cleanup();
      this.onError = void 0;
      this.onClose = void 0;
    }
  };
  function resetPingInterval() {
    stopPingInterval();
    if (streamCount > 0 || options.pingIdleConnection) {
      pingIntervalId = safeSetTimeout(onPingInterval, options.pingIntervalMs);
    }
  }
  function stopPingInterval() {
    clearTimeout(pingIntervalId);
    clearTimeout(pingTimeoutId);
  }
  function onPingInterval() {
    commonPing(resetPingInterval);
  }
  function commonPing(onSuccess) {
    clearTimeout(pingTimeoutId);
    pingTimeoutId = safeSetTimeout(() => {
      conn.destroy(new ConnectError("PING timed out", Code.Unavailable), http2.constants.NGHTTP2_CANCEL);
    }, options.pingTimeoutMs);
    conn.ping((err, duration) => {
      clearTimeout(pingTimeoutId);
      if (err !== null) {
        return;
      }
      if (duration > options.pingTimeoutMs) {
        conn.destroy(new ConnectError("PING timed out", Code.Unavailable), http2.constants.NGHTTP2_CANCEL);
        return;
      }
      lastAliveAt = Date.now();
      onSuccess();
    });
  }
  function stopIdleTimeout() {
    clearTimeout(idleTimeoutId);
  }
  function resetIdleTimeout() {
    idleTimeoutId = safeSetTimeout(onIdleTimeout, options.idleConnectionTimeoutMs);
  }
  function onIdleTimeout() {
    conn.close();
    onClose();
  }
  function onGoaway(errorCode, lastStreamID, opaqueData) {
    if (errorCode === http2.constants.NGHTTP2_NO_ERROR && streamCount === 0) {
      conn.destroy(new ConnectError("received GOAWAY without any open streams", Code.Canceled), http2.constants.NGHTTP2_NO_ERROR);
      return;
    }
    receivedGoAway = true;
    const tooManyPingsAscii = Buffer.from("too_many_pings", "ascii");
    if (opaqueData === null || opaqueData === void 0 ? void 0 : opaqueData.equals(tooManyPingsAscii)) {
      options.pingIntervalMs = options.pingIntervalMs * 2;
      receivedGoAwayEnhanceYourCalmTooManyPings = true;
    }
  }
  function onClose() {
    var _a2;
    cleanup();
    (_a2 = state.onClose) === null || _a2 === void 0 ? void 0 : _a2.call(state);
  }
  function onError(err) {
    var _a2, _b;
    cleanup();
    if (receivedGoAwayEnhanceYourCalmTooManyPings) {
      const ce = new ConnectError(`http/2 connection closed with error code ENHANCE_YOUR_CALM (0x${http2.constants.NGHTTP2_ENHANCE_YOUR_CALM.toString(16)}), too_many_pings, doubled the interval`, Code.ResourceExhausted);
      (_a2 = state.onError) === null || _a2 === void 0 ? void 0 : _a2.call(state, ce);
    } else {
      (_b = state.onError) === null || _b === void 0 ? void 0 : _b.call(state, connectErrorFromNodeReason(err));
    }
  }
  function cleanup() {
    stopPingInterval();
    stopIdleTimeout();
    conn.off("error", onError);
    conn.off("close", onClose);
    conn.off("goaway", onGoaway);
  }
  conn.on("error", onError);
  conn.on("close", onClose);
  conn.on("goaway", onGoaway);
  return state;
}
function safeSetTimeout(callback, ms) {
  if (ms > 2147483647) {
    return;
  }
  return setTimeout(callback, ms).unref();
}
function assertSessionOpen(conn) {
  if (conn.connecting) {
    throw new ConnectError("expected open session, but it is connecting", Code.Internal);
  }
  if (conn.destroyed) {
    throw new ConnectError("expected open session, but it is destroyed", Code.Internal);
  }
  if (conn.closed) {
    throw new ConnectError("expected open session, but it is closed", Code.Internal);
  }
}

// node_modules/@connectrpc/connect-node/dist/esm/node-universal-client.js
function createNodeHttpClient(options) {
  var _a2;
  if (options.httpVersion == "1.1") {
    return createNodeHttp1Client(options.nodeOptions);
  }
  const sessionProvider = (_a2 = options.sessionProvider) !== null && _a2 !== void 0 ? _a2 : ((url) => new Http2SessionManager(url));
  return createNodeHttp2Client(sessionProvider);
}
function createNodeHttp1Client(httpOptions) {
  return async function request3(req) {
    const sentinel = createSentinel(req.signal);
    return new Promise((resolve, reject) => {
      sentinel.onError((e) => {
        reject(e);
      });
      h1Request(sentinel, req.url, Object.assign(Object.assign({}, httpOptions), { headers: webHeaderToNodeHeaders(req.header, httpOptions === null || httpOptions === void 0 ? void 0 : httpOptions.headers), method: req.method }), (request4) => {
        void sinkRequest(req, request4, sentinel);
        request4.on("response", (response) => {
          var _a2;
          response.on("error", sentinel.error);
          sentinel.onError((reason) => response.destroy(reason));
          const trailer = new Headers();
          resolve({
            status: (_a2 = response.statusCode) !== null && _a2 !== void 0 ? _a2 : 0,
            header: nodeHeaderToWebHeader(response.headers),
            body: h1ResponseIterable(sentinel, response, trailer),
            trailer
          });
        });
      });
    });
  };
}
function createNodeHttp2Client(sessionProvider) {
  return function request3(req) {
    const sentinel = createSentinel(req.signal);
    const sessionManager = sessionProvider(req.url);
    return new Promise((resolve, reject) => {
      sentinel.onError((e) => {
        reject(e);
      });
      h2Request(sentinel, sessionManager, req.url, req.method, webHeaderToNodeHeaders(req.header), {}, (stream) => {
        void sinkRequest(req, stream, sentinel);
        stream.on("response", (headers) => {
          var _a2;
          const response = {
            status: (_a2 = headers[":status"]) !== null && _a2 !== void 0 ? _a2 : 0,
            header: nodeHeaderToWebHeader(headers),
            body: h2ResponseIterable(sentinel, stream, sessionManager),
            trailer: h2ResponseTrailer(stream)
          };
          resolve(response);
        });
      });
    });
  };
}
function h1Request(sentinel, url, options, onRequest) {
  let request3;
  if (new URL(url).protocol.startsWith("https")) {
    request3 = https.request(url, options);
  } else {
    request3 = http.request(url, options);
  }
  sentinel.onError((reason) => request3.destroy(reason));
  request3.flushHeaders();
  request3.on("error", sentinel.error);
  request3.on("socket", function onRequestSocket(socket) {
    function onSocketConnect() {
      socket.off("connect", onSocketConnect);
      onRequest(request3);
    }
    if (socket.readyState === "open") {
      onRequest(request3);
    } else {
      socket.on("connect", onSocketConnect);
    }
  });
}
function h1ResponseIterable(sentinel, response, trailer) {
  const inner = response[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]() {
      return {
        async next() {
          const r = await sentinel.race(inner.next());
          if (r.done === true) {
            nodeHeaderToWebHeader(response.trailers).forEach((value, key) => {
              trailer.set(key, value);
            });
            sentinel.close();
          }
          return r;
        },
        throw(e) {
          sentinel.error(e);
          throw e;
        }
      };
    }
  };
}
function h2Request(sentinel, sm, url, method, headers, options, onStream) {
  const requestUrl = new URL(url);
  if (requestUrl.origin !== sm.authority) {
    const message2 = `cannot make a request to ${requestUrl.origin}: the http2 session is connected to ${sm.authority}`;
    sentinel.error(new ConnectError(message2, Code.Internal));
    return;
  }
  sm.request(method, requestUrl.pathname + requestUrl.search, headers, {}).then((stream) => {
    sentinel.onError((reason) => {
      if (stream.closed) {
        return;
      }
      const rstCode = reason.code == Code.Canceled ? H2Code.CANCEL : H2Code.INTERNAL_ERROR;
      return new Promise((resolve) => stream.close(rstCode, resolve));
    });
    stream.on("error", function h2StreamError(e) {
      if (stream.writableEnded && unwrapNodeErrorChain(e).map(getNodeErrorProps).some((p) => p.code == "ERR_STREAM_WRITE_AFTER_END")) {
        return;
      }
      sentinel.error(e);
    });
    stream.on("close", function h2StreamClose() {
      const err = connectErrorFromH2ResetCode(stream.rstCode);
      if (err) {
        sentinel.error(err);
      }
    });
    onStream(stream);
  }, (reason) => {
    sentinel.error(reason);
  });
}
function h2ResponseTrailer(response) {
  const trailer = new Headers();
  response.on("trailers", (args) => {
    nodeHeaderToWebHeader(args).forEach((value, key) => {
      trailer.set(key, value);
    });
  });
  return trailer;
}
function h2ResponseIterable(sentinel, response, sm) {
  const inner = response[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]() {
      return {
        async next() {
          const r = await sentinel.race(inner.next());
          if (r.done === true) {
            sentinel.close();
          }
          sm === null || sm === void 0 ? void 0 : sm.notifyResponseByteRead(response);
          return r;
        },
        throw(e) {
          sentinel.error(e);
          throw e;
        }
      };
    }
  };
}
async function sinkRequest(request3, nodeRequest, sentinel) {
  if (request3.body === void 0) {
    await new Promise((resolve) => nodeRequest.end(resolve));
    return;
  }
  const it = request3.body[Symbol.asyncIterator]();
  return new Promise((resolve) => {
    writeNext();
    function writeNext() {
      if (sentinel.isClosed()) {
        return;
      }
      it.next().then((r) => {
        if (r.done === true) {
          nodeRequest.end(resolve);
          return;
        }
        nodeRequest.write(r.value, "binary", (e) => {
          if (e === null || e === void 0) {
            writeNext();
            return;
          }
          if (it.throw !== void 0) {
            it.throw(connectErrorFromNodeReason(e)).catch(() => {
            });
          }
          if (nodeRequest.writableEnded && unwrapNodeErrorChain(e).map(getNodeErrorProps).some((p) => p.code == "ERR_STREAM_WRITE_AFTER_END")) {
            return;
          }
          sentinel.error(e);
        });
      }, (e) => {
        sentinel.error(e);
      });
    }
  });
}
function createSentinel(signal) {
  let rejectRace;
  let closed2 = false;
  let closedError = void 0;
  let onErrorListeners = [];
  const sentinel = {
    error(error2) {
      if (closed2) {
        return;
      }
      closed2 = true;
      closedError = error2 instanceof ConnectError ? error2 : connectErrorFromNodeReason(error2);
      rejectRace === null || rejectRace === void 0 ? void 0 : rejectRace(closedError);
      for (const onRejected of onErrorListeners) {
        onRejected(closedError);
      }
      cleanup();
    },
    close() {
      if (closed2) {
        return;
      }
      closed2 = true;
      if (rejectRace) {
        rejectRace(new ConnectError("sentinel completed early", Code.Internal));
      }
      cleanup();
    },
    isClosed() {
      return closed2;
    },
    onError(onError) {
      if (closed2) {
        if (closedError !== void 0) {
          onError(closedError);
        }
      } else {
        onErrorListeners.push(onError);
      }
    },
    race(promise) {
      let resolveRace;
      const race = new Promise((resolve, reject) => {
        resolveRace = resolve;
        rejectRace = reject;
      });
      promise.then((value) => {
        resolveRace === null || resolveRace === void 0 ? void 0 : resolveRace(value);
      }, (reason) => {
        rejectRace === null || rejectRace === void 0 ? void 0 : rejectRace(reason);
      });
      if (closed2) {
        rejectRace === null || rejectRace === void 0 ? void 0 : rejectRace(closedError !== null && closedError !== void 0 ? closedError : new ConnectError("sentinel completed early", Code.Internal));
      }
      return race;
    }
  };
  function cleanup() {
    if (signal) {
      signal.removeEventListener("abort", onSignalAbort);
    }
    onErrorListeners = [];
    rejectRace = void 0;
  }
  function onSignalAbort() {
    sentinel.error(getAbortSignalReason(this));
  }
  if (signal) {
    signal.addEventListener("abort", onSignalAbort);
    if (signal.aborted) {
      sentinel.error(getAbortSignalReason(signal));
    }
  }
  return sentinel;
}

// node_modules/@connectrpc/connect-node/dist/esm/node-transport-options.js
function validateNodeTransportOptions(options) {
  var _a2, _b, _c, _d2;
  let httpClient;
  if (options.httpVersion == "2") {
    let sessionManager;
    if (options.sessionManager) {
      sessionManager = options.sessionManager;
    } else {
      sessionManager = new Http2SessionManager(options.baseUrl, {
        pingIntervalMs: options.pingIntervalMs,
        pingIdleConnection: options.pingIdleConnection,
        pingTimeoutMs: options.pingTimeoutMs,
        idleConnectionTimeoutMs: options.idleConnectionTimeoutMs
      }, options.nodeOptions);
    }
    httpClient = createNodeHttpClient({
      httpVersion: "2",
      sessionProvider: () => sessionManager
    });
  } else {
    httpClient = createNodeHttpClient({
      httpVersion: "1.1",
      nodeOptions: options.nodeOptions
    });
  }
  return Object.assign(Object.assign(Object.assign({}, options), { httpClient, useBinaryFormat: (_a2 = options.useBinaryFormat) !== null && _a2 !== void 0 ? _a2 : true, interceptors: (_b = options.interceptors) !== null && _b !== void 0 ? _b : [], sendCompression: (_c = options.sendCompression) !== null && _c !== void 0 ? _c : null, acceptCompression: (_d2 = options.acceptCompression) !== null && _d2 !== void 0 ? _d2 : [
    compressionGzip,
    compressionBrotli
  ] }), validateReadWriteMaxBytes(options.readMaxBytes, options.writeMaxBytes, options.compressMinBytes));
}

// node_modules/@connectrpc/connect-node/dist/esm/grpc-transport.js
function createGrpcTransport(options) {
  return createTransport2(validateNodeTransportOptions(Object.assign(Object.assign({}, options), { httpVersion: "2" })));
}

// node_modules/@connectrpc/connect-node/dist/esm/node-universal-handler.js
var __asyncValues6 = function(o) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var m = o[Symbol.asyncIterator], i;
  return m ? m.call(o) : (o = typeof __values === "function" ? __values(o) : o[Symbol.iterator](), i = {}, verb("next"), verb("throw"), verb("return"), i[Symbol.asyncIterator] = function() {
    return this;
  }, i);
  function verb(n) {
    i[n] = o[n] && function(v) {
      return new Promise(function(resolve, reject) {
        v = o[n](v), settle(resolve, reject, v.done, v.value);
      });
    };
  }
  function settle(resolve, reject, d, v) {
    Promise.resolve(v).then(function(v2) {
      resolve({ value: v2, done: d });
    }, reject);
  }
};
var __await6 = function(v) {
  return this instanceof __await6 ? (this.v = v, this) : new __await6(v);
};
var __asyncGenerator6 = function(thisArg, _arguments, generator) {
  if (!Symbol.asyncIterator) throw new TypeError("Symbol.asyncIterator is not defined.");
  var g = generator.apply(thisArg, _arguments || []), i, q = [];
  return i = Object.create((typeof AsyncIterator === "function" ? AsyncIterator : Object).prototype), verb("next"), verb("throw"), verb("return", awaitReturn), i[Symbol.asyncIterator] = function() {
    return this;
  }, i;
  function awaitReturn(f) {
    return function(v) {
      return Promise.resolve(v).then(f, reject);
    };
  }
  function verb(n, f) {
    if (g[n]) {
      i[n] = function(v) {
        return new Promise(function(a, b) {
          q.push([n, v, a, b]) > 1 || resume(n, v);
        });
      };
      if (f) i[n] = f(i[n]);
    }
  }
  function resume(n, v) {
    try {
      step(g[n](v));
    } catch (e) {
      settle(q[0][3], e);
    }
  }
  function step(r) {
    r.value instanceof __await6 ? Promise.resolve(r.value.v).then(fulfill, reject) : settle(q[0][2], r);
  }
  function fulfill(value) {
    resume("next", value);
  }
  function reject(value) {
    resume("throw", value);
  }
  function settle(f, v) {
    if (f(v), q.shift(), q.length) resume(q[0][0], q[0][1]);
  }
};
function universalRequestFromNodeRequest(nodeRequest, ...rest) {
  var _a2, _b;
  const nodeResponse = rest.length === 3 ? rest[0] : void 0;
  const parsedJsonBody = rest.length === 3 ? rest[1] : rest[0];
  const contextValues = rest.length === 3 ? rest[2] : rest[1];
  const encrypted = "encrypted" in nodeRequest.socket && nodeRequest.socket.encrypted;
  const protocol = encrypted ? "https" : "http";
  const authority = "authority" in nodeRequest ? nodeRequest.authority : nodeRequest.headers.host;
  const pathname = (_a2 = nodeRequest.url) !== null && _a2 !== void 0 ? _a2 : "";
  if (authority === void 0) {
    throw new ConnectError("unable to determine request authority from Node.js server request", Code.Internal);
  }
  const body = parsedJsonBody !== void 0 ? parsedJsonBody : asyncIterableFromNodeServerRequest(nodeRequest);
  const abortController = new AbortController();
  if ("stream" in nodeRequest) {
    nodeRequest.once("close", () => {
      const err = connectErrorFromH2ResetCode(nodeRequest.stream.rstCode);
      if (err !== void 0) {
        abortController.abort(err);
      } else {
        abortController.abort();
      }
    });
  } else {
    const nodeResponsOrRequest = nodeResponse !== null && nodeResponse !== void 0 ? nodeResponse : nodeRequest;
    const onH1Error = (e) => {
      nodeRequest.off("error", onH1Error);
      nodeResponsOrRequest.off("close", onH1Close);
      abortController.abort(connectErrorFromNodeReason(e));
    };
    const onH1Close = () => {
      nodeRequest.off("error", onH1Error);
      nodeResponsOrRequest.off("close", onH1Close);
      abortController.abort(nodeRequest.errored ? connectErrorFromNodeReason(nodeRequest.errored) : void 0);
    };
    nodeRequest.once("error", onH1Error);
    nodeResponsOrRequest.once("close", onH1Close);
  }
  return {
    httpVersion: nodeRequest.httpVersion,
    method: (_b = nodeRequest.method) !== null && _b !== void 0 ? _b : "",
    url: new URL(pathname, `${protocol}://${authority}`).toString(),
    header: nodeHeaderToWebHeader(nodeRequest.headers),
    body,
    signal: abortController.signal,
    contextValues
  };
}
async function universalResponseToNodeResponse(universalResponse, nodeResponse) {
  var _a2, _b, _c;
  const it = (_a2 = universalResponse.body) === null || _a2 === void 0 ? void 0 : _a2[Symbol.asyncIterator]();
  let isWriteError = false;
  try {
    if (it !== void 0) {
      let chunk = await it.next();
      isWriteError = true;
      nodeResponse.writeHead(universalResponse.status, webHeaderToNodeHeaders(universalResponse.header));
      isWriteError = false;
      for (; chunk.done !== true; chunk = await it.next()) {
        isWriteError = true;
        await write(nodeResponse, chunk.value);
        if ("flush" in nodeResponse && typeof nodeResponse.flush == "function") {
          nodeResponse.flush();
        }
        isWriteError = false;
      }
    }
    if (!nodeResponse.headersSent) {
      nodeResponse.writeHead(universalResponse.status, webHeaderToNodeHeaders(universalResponse.header));
    }
    if (universalResponse.trailer) {
      nodeResponse.addTrailers(webHeaderToNodeHeaders(universalResponse.trailer));
    }
    await new Promise((resolve) => {
      nodeResponse.once("end", resolve);
      nodeResponse.end();
    });
  } catch (e) {
    if (isWriteError) {
      (_b = it === null || it === void 0 ? void 0 : it.throw) === null || _b === void 0 ? void 0 : _b.call(it, e).catch(() => {
      });
    }
    throw connectErrorFromNodeReason(e);
  } finally {
    (_c = it === null || it === void 0 ? void 0 : it.return) === null || _c === void 0 ? void 0 : _c.call(it).catch(() => {
    });
  }
}
function asyncIterableFromNodeServerRequest(request3) {
  return __asyncGenerator6(this, arguments, function* asyncIterableFromNodeServerRequest_1() {
    var _a2, e_1, _b, _c;
    try {
      for (var _d2 = true, request_1 = __asyncValues6(request3), request_1_1; request_1_1 = yield __await6(request_1.next()), _a2 = request_1_1.done, !_a2; _d2 = true) {
        _c = request_1_1.value;
        _d2 = false;
        const chunk = _c;
        yield yield __await6(chunk);
      }
    } catch (e_1_1) {
      e_1 = { error: e_1_1 };
    } finally {
      try {
        if (!_d2 && !_a2 && (_b = request_1.return)) yield __await6(_b.call(request_1));
      } finally {
        if (e_1) throw e_1.error;
      }
    }
  });
}
function write(stream, data) {
  return new Promise((resolve, reject) => {
    if (stream.errored) {
      return error2(stream.errored);
    }
    stream.once("error", error2);
    stream.once("drain", drain);
    const flushed = stream.write(data, "binary", (err) => {
      if (err && !flushed) {
        error2(err);
        stream.once("error", () => {
        });
      }
    });
    if (flushed) {
      drain();
    }
    function error2(err) {
      stream.off("error", error2);
      stream.off("drain", drain);
      reject(err);
    }
    function drain() {
      stream.off("error", error2);
      stream.off("drain", drain);
      resolve();
    }
  });
}

// node_modules/@connectrpc/connect-node/dist/esm/connect-node-adapter.js
function connectNodeAdapter(options) {
  var _a2;
  if (options.acceptCompression === void 0) {
    options.acceptCompression = [compressionGzip, compressionBrotli];
  }
  const router = createConnectRouter(options);
  options.routes(router);
  const prefix = (_a2 = options.requestPathPrefix) !== null && _a2 !== void 0 ? _a2 : "";
  const paths = /* @__PURE__ */ new Map();
  for (const uHandler of router.handlers) {
    paths.set(prefix + uHandler.requestPath, uHandler);
  }
  return function nodeRequestHandler(req, res) {
    var _a3, _b, _c, _d2;
    const uHandler = paths.get((_b = (_a3 = req.url) === null || _a3 === void 0 ? void 0 : _a3.split("?", 2)[0]) !== null && _b !== void 0 ? _b : "");
    if (!uHandler) {
      ((_c = options.fallback) !== null && _c !== void 0 ? _c : fallback)(req, res);
      return;
    }
    const uReq = universalRequestFromNodeRequest(req, res, void 0, (_d2 = options.contextValues) === null || _d2 === void 0 ? void 0 : _d2.call(options, req));
    uHandler(uReq).then((uRes) => universalResponseToNodeResponse(uRes, res)).catch((reason) => {
      if (ConnectError.from(reason).code == Code.Aborted) {
        return;
      }
      console.error(`handler for rpc ${uHandler.method.name} of ${uHandler.service.typeName} failed`, reason);
    });
  };
}
var fallback = (request3, response) => {
  response.writeHead(uResponseNotFound.status);
  response.end();
};

// lib/src/server/deadline-context.ts
import { AsyncLocalStorage } from "node:async_hooks";
var deadline = new AsyncLocalStorage();
var GRPC_UNITS = {
  H: 36e5,
  M: 6e4,
  S: 1e3,
  m: 1,
  u: 1e-3,
  n: 1e-6
};
function timeoutFromHeaders(header) {
  const grpc = /^(\d{1,8})([HMSmun])$/.exec(header.get("grpc-timeout") ?? "");
  if (grpc) return Number(grpc[1]) * GRPC_UNITS[grpc[2]];
  const connect3 = Number(header.get("connect-timeout-ms") ?? NaN);
  return Number.isFinite(connect3) && connect3 >= 0 ? connect3 : void 0;
}
var serverDeadlineInterceptor = (next) => (req) => {
  const ms = timeoutFromHeaders(req.header);
  return ms === void 0 ? next(req) : deadline.run(Date.now() + ms, () => next(req));
};
function remainingMs() {
  const at = deadline.getStore();
  return at === void 0 ? void 0 : at - Date.now();
}
function withRequestDeadline(ms, fn) {
  return deadline.run(Date.now() + ms, fn);
}

// lib/src/server/listen-guard.ts
import { isIP } from "node:net";
function assertListenAllowed(host, auth) {
  if (auth !== "local" || isLoopbackHost(host)) return;
  throw new Error(
    `SVC_AUTH_PROVIDER=local gives every caller full rights, so it only listens on loopback (127.0.0.1, ::1, localhost); SVC_HOST=${host} is not. Configure SVC_AUTH_PROVIDER=oidc to listen on ${host}.`
  );
}
function isLoopbackHost(host) {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  const v4 = h.startsWith("::ffff:") ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith("127.");
}

// lib/src/server/grpc-server.ts
async function startRpcServer(opts) {
  assertListenAllowed(opts.host, opts.auth ?? "local");
  const handler = connectNodeAdapter({
    routes: opts.routes,
    interceptors: [serverDeadlineInterceptor, ...opts.interceptors]
  });
  const server = http22.createServer(handler);
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = server.address().port;
  const sessions = /* @__PURE__ */ new Set();
  server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  return {
    port,
    url: `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      for (const s of sessions) s.close();
    })
  };
}

// lib/src/server/shutdown.ts
function closeOnSignals(log, closers) {
  let closing = false;
  const onSignal = async (signal) => {
    if (closing) process.exit(1);
    closing = true;
    log.info({ signal }, "shutting down");
    for (const close of closers) {
      try {
        await close();
      } catch (err) {
        log.error({ err }, "error while shutting down");
      }
    }
    process.exit(0);
  };
  process.once("SIGTERM", () => void onSignal("SIGTERM"));
  process.once("SIGINT", () => void onSignal("SIGINT"));
}

// lib/src/kv/memory-store.ts
function createMemoryStore(now = Date.now) {
  const entries = /* @__PURE__ */ new Map();
  const live = (key) => {
    const e = entries.get(key);
    if (e && e.expiresAt !== null && e.expiresAt <= now()) {
      entries.delete(key);
      return void 0;
    }
    return e;
  };
  return {
    async get(key) {
      return live(key)?.value ?? null;
    },
    async getMany(keys) {
      return keys.map((key) => live(key)?.value ?? null);
    },
    async set(key, value, opts) {
      entries.set(key, {
        value,
        expiresAt: opts?.ttlSeconds ? now() + opts.ttlSeconds * 1e3 : null
      });
    },
    async delete(key) {
      const existed = live(key) !== void 0;
      entries.delete(key);
      return existed;
    },
    async increment(key, ttlSeconds) {
      const e = live(key);
      const value = String(Number(e?.value ?? 0) + 1);
      entries.set(key, { value, expiresAt: e ? e.expiresAt : now() + ttlSeconds * 1e3 });
      return Number(value);
    },
    async scan(prefix) {
      return [...entries.keys()].filter((k) => k.startsWith(prefix) && live(k)).map((key) => ({ key, value: entries.get(key).value }));
    },
    async ping() {
    },
    async close() {
      entries.clear();
    }
  };
}

// lib/src/kv/index.ts
async function createRedisStore(...args) {
  return (await import("./redis-store-5BOXQ776.js")).createRedisStore(...args);
}
async function openKeyValueStore(opts) {
  return opts.url ? createRedisStore(opts.url, { timeoutMs: opts.timeoutMs }) : createMemoryStore();
}

// lib/src/telemetry/logger.ts
import { pino } from "pino";

// lib/src/telemetry/pretty-lines.ts
import { prettyFactory, isColorSupported } from "pino-pretty";
function prettyLines(out = process.stdout, level = "info") {
  const showRpcSuccess = level === "debug" || level === "trace";
  const prettify = prettyFactory({
    colorize: Boolean(out.isTTY) && isColorSupported,
    singleLine: true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname"
  });
  return {
    write(line) {
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        out.write(line);
        return;
      }
      if (entry.msg === "rpc" && entry.code === "ok" && !showRpcSuccess) return;
      out.write(prettify(entry.msg === "http" ? requestLine(entry) : entry));
    }
  };
}
function requestLine(entry) {
  const { method, url, status, ms, request_id, ...rest } = entry;
  return {
    ...rest,
    msg: `${String(method)} ${String(url)} ${String(status)} ${String(ms)} ms`,
    request_id
  };
}

// lib/src/telemetry/logger.ts
function createLogger(opts) {
  const level = opts.level ?? "info";
  const options = {
    name: opts.name,
    level,
    // Secrets travel in these headers; a log line must never carry them.
    redact: {
      paths: ["authorization", "headers.authorization", "*.authorization"],
      censor: "[redacted]"
    }
  };
  const format = opts.format ?? "json";
  const pretty = format === "pretty" || format === "auto" && Boolean(process.stdout.isTTY);
  if (pretty) return pino(options, prettyLines(opts.destination ?? process.stdout, level));
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

// lib/src/telemetry/request-id.ts
import { randomUUID } from "node:crypto";
var requestIdKey = createContextKey("", { description: "request id" });
var REQUEST_ID_HEADER = "x-request-id";
var SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
function requestIdFrom(value) {
  return typeof value === "string" && SAFE_REQUEST_ID.test(value) ? value : randomUUID();
}

// lib/src/telemetry/trace-context.ts
import { context, propagation, trace } from "@opentelemetry/api";
function tracer() {
  return trace.getTracer("svc");
}
function injectTraceHeaders(headers, ctx = context.active()) {
  propagation.inject(ctx, headers, { set: (carrier, key, value) => carrier.set(key, value) });
}
function currentTraceparent() {
  const carrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? "";
}
function contextFromTraceparent(traceparent) {
  if (!traceparent) return context.active();
  return propagation.extract(context.active(), { traceparent });
}
function extractTraceContext(headers) {
  return propagation.extract(context.active(), headers, {
    get: (carrier, key) => carrier.get(key) ?? void 0,
    keys: (carrier) => [...carrier.keys()]
  });
}

// lib/src/telemetry/server-interceptors.ts
import { context as context2, SpanKind, SpanStatusCode, trace as trace2 } from "@opentelemetry/api";
function createLoggingInterceptor(log) {
  return (next) => async (req) => {
    const requestId = requestIdFrom(req.header.get(REQUEST_ID_HEADER));
    req.contextValues.set(requestIdKey, requestId);
    const started2 = performance.now();
    const rpc = `${req.service.typeName}/${req.method.name}`;
    const ended = (err) => {
      const ms = performance.now() - started2;
      if (err === void 0) {
        observe(rpc, "ok", ms);
        log.info({ request_id: requestId, rpc, code: "ok", ms: round(ms) }, "rpc");
        return void 0;
      }
      const known = err instanceof ConnectError;
      const out = known ? err : connectErrorOf(err, requestId);
      out.metadata.set(REQUEST_ID_HEADER, requestId);
      const entry = { request_id: requestId, rpc, code: Code[out.code], ms: round(ms) };
      observe(rpc, codeName(out.code), ms);
      if (!known && out.code === Code.Unavailable)
        log.warn({ ...entry, err }, "rpc refused: a store did not answer");
      else if (known && out.code !== Code.Internal && out.code !== Code.Unknown)
        log.info({ ...entry, message: out.rawMessage }, "rpc");
      else log.error({ ...entry, err: known ? err.cause ?? err : err }, "rpc failed");
      return out;
    };
    let res;
    try {
      res = await next(req);
    } catch (err) {
      throw ended(err);
    }
    res.header.set(REQUEST_ID_HEADER, requestId);
    if (!res.stream) {
      ended();
      return res;
    }
    return { ...res, message: endedWhenDone(res.message, ended, req.signal) };
  };
}
async function* endedWhenDone(stream, ended, signal) {
  let failed = false;
  try {
    yield* stream;
  } catch (err) {
    failed = true;
    throw ended(err);
  } finally {
    if (!failed)
      ended(signal.aborted ? new ConnectError("the client went away", Code.Canceled) : void 0);
  }
}
function connectErrorOf(err, requestId) {
  if (isStoreOutage(err))
    return svcError(
      Code.Unavailable,
      "store_unavailable",
      `a data store this request needs did not answer in time; retry in a moment (request id ${requestId}). A change cut off this way may or may not have taken effect: read it back before sending it again`,
      {},
      { cause: err }
    );
  return new ConnectError(
    `internal error (request id ${requestId})`,
    Code.Internal,
    void 0,
    void 0,
    err
  );
}
function createTracingInterceptor() {
  return (next) => async (req) => {
    const parent = extractTraceContext(req.header);
    const span = tracer().startSpan(
      `${req.service.typeName}/${req.method.name}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "rpc.system": "connect_rpc",
          "rpc.service": req.service.typeName,
          "rpc.method": req.method.name
        }
      },
      parent
    );
    try {
      return await context2.with(trace2.setSpan(parent, span), () => next(req));
    } catch (err) {
      const code = err instanceof ConnectError ? Code[err.code] : "internal";
      span.setAttribute("rpc.connect_rpc.error_code", code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: code });
      throw err;
    } finally {
      span.end();
    }
  };
}
function round(ms) {
  return Math.round(ms * 100) / 100;
}
function observe(rpc, code, ms) {
  rpcRequests.inc({ rpc, code });
  rpcDuration.observe({ rpc }, ms / 1e3);
}
function codeName(code) {
  return Code[code].replace(
    /[A-Z]/g,
    (c, i) => i === 0 ? c.toLowerCase() : `_${c.toLowerCase()}`
  );
}

// lib/src/telemetry/metrics-server.ts
var import_prom_client = __toESM(require_prom_client(), 1);
import { createServer } from "node:http";
var defaultsCollected = false;
async function startMetricsServer(o) {
  if (!defaultsCollected) {
    (0, import_prom_client.collectDefaultMetrics)({ register: metricsRegistry, prefix: "svc_process_" });
    defaultsCollected = true;
  }
  const server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics is served here\n");
      return;
    }
    metricsRegistry.metrics().then(
      (text) => res.writeHead(200, { "content-type": metricsRegistry.contentType }).end(text),
      (err) => res.writeHead(500, { "content-type": "text/plain" }).end(String(err))
    );
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : o.port;
  return {
    url: `http://${o.host.includes(":") ? `[${o.host}]` : o.host}:${port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  };
}

// lib/src/telemetry/process-telemetry.ts
var started;
var users = 0;
function startProcessTelemetry(config, log, serviceName) {
  users++;
  started ??= (async () => {
    const { otlpEndpoint, otlpProtocol, metricsPort } = config.telemetry;
    const traces = otlpEndpoint ? (await import("./trace-export-UO7Y5WLM.js")).startTraceExport({
      serviceName,
      endpoint: otlpEndpoint,
      protocol: otlpProtocol
    }) : void 0;
    if (traces)
      log.info({ endpoint: otlpEndpoint, protocol: otlpProtocol }, "exporting traces over OTLP");
    const metrics = metricsPort === void 0 ? void 0 : await startMetricsServer({ host: config.host, port: metricsPort });
    if (metrics) log.info({ url: metrics.url }, "serving Prometheus metrics");
    return {
      async close() {
        await Promise.all([traces?.shutdown(), metrics?.close()]);
      }
    };
  })();
  const process2 = started;
  let closed2 = false;
  return process2.then(() => ({
    // The last platform of the process to close flushes the spans and closes the endpoint.
    async close() {
      if (closed2) return;
      closed2 = true;
      if (--users > 0) return;
      started = void 0;
      await (await process2).close();
    }
  }));
}

// lib/src/auth/principal.ts
var principalKey = createContextKey(void 0, {
  description: "principal"
});
var bearerRejectionKey = createContextKey(void 0, {
  description: "bearer rejection"
});
var refusedPrincipalKey = createContextKey(void 0, {
  description: "refused principal"
});
function principalOf(ctx) {
  const p = ctx.values.get(principalKey);
  if (!p)
    throw svcError(
      Code.Unauthenticated,
      "unauthenticated",
      "this call needs an authenticated caller"
    );
  return p;
}
function hasScope(p, scope) {
  return p.actorType === "local" || p.scopes.includes(scope);
}

// node_modules/jose/dist/webapi/lib/buffer_utils.js
var encoder = new TextEncoder();
var decoder = new TextDecoder();
var strictDecoder = new TextDecoder("utf-8", { fatal: true });
var UINT32_RANGE = 2 ** 32;
function concat(...buffers) {
  const size = buffers.reduce((acc, { length }) => acc + length, 0), buf = new Uint8Array(size);
  let i = 0;
  for (const buffer of buffers)
    buf.set(buffer, i), i += buffer.length;
  return buf;
}
var NON_ASCII = /[^\x00-\x7f]/;
function encode(string) {
  if (typeof string == "string" && string.length >= 128) {
    if (NON_ASCII.test(string))
      throw new TypeError("non-ASCII string encountered in encode()");
    return encoder.encode(string);
  }
  const bytes = new Uint8Array(string.length);
  for (let i = 0; i < string.length; i++) {
    const code = string.charCodeAt(i);
    if (code > 127)
      throw new TypeError("non-ASCII string encountered in encode()");
    bytes[i] = code;
  }
  return bytes;
}
function encodeBase64(input, url = false) {
  if (Uint8Array.prototype.toBase64)
    return input.toBase64({ alphabet: url ? "base64url" : "base64", omitPadding: url });
  const CHUNK_SIZE = 32768, arr = [];
  for (let i = 0; i < input.length; i += CHUNK_SIZE)
    arr.push(String.fromCharCode.apply(null, input.subarray(i, i + CHUNK_SIZE)));
  const encoded = btoa(arr.join(""));
  return url ? encoded.replace(/=/g, "").replace(/\+/g, "-").replace(/\//g, "_") : encoded;
}
function decodeBase64(encoded, url = false) {
  if (Uint8Array.fromBase64)
    return Uint8Array.fromBase64(encoded, { alphabet: url ? "base64url" : "base64" });
  if (url) {
    if (encoded.includes("+") || encoded.includes("/"))
      throw new TypeError("Invalid base64url");
    encoded = encoded.replace(/-/g, "+").replace(/_/g, "/");
  }
  const binary = atob(encoded), bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++)
    bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// node_modules/jose/dist/webapi/util/errors.js
var errors_exports = {};
__export(errors_exports, {
  JOSEAlgNotAllowed: () => JOSEAlgNotAllowed,
  JOSEError: () => JOSEError,
  JOSENotSupported: () => JOSENotSupported,
  JWEDecryptionFailed: () => JWEDecryptionFailed,
  JWEInvalid: () => JWEInvalid,
  JWKInvalid: () => JWKInvalid,
  JWKSInvalid: () => JWKSInvalid,
  JWKSMultipleMatchingKeys: () => JWKSMultipleMatchingKeys,
  JWKSNoMatchingKey: () => JWKSNoMatchingKey,
  JWKSTimeout: () => JWKSTimeout,
  JWSInvalid: () => JWSInvalid,
  JWSSignatureVerificationFailed: () => JWSSignatureVerificationFailed,
  JWTClaimValidationFailed: () => JWTClaimValidationFailed,
  JWTExpired: () => JWTExpired,
  JWTInvalid: () => JWTInvalid
});
var JOSEError = class extends Error {
  static code = "ERR_JOSE_GENERIC";
  code = "ERR_JOSE_GENERIC";
  constructor(message2, options) {
    super(message2, options), this.name = this.constructor.name, Error.captureStackTrace?.(this, this.constructor);
  }
};
var JWTClaimValidationFailed = class extends JOSEError {
  static code = "ERR_JWT_CLAIM_VALIDATION_FAILED";
  code = "ERR_JWT_CLAIM_VALIDATION_FAILED";
  claim;
  reason;
  payload;
  constructor(message2, payload, claim = "unspecified", reason = "unspecified") {
    super(message2, { cause: { claim, reason, payload } }), this.claim = claim, this.reason = reason, this.payload = payload;
  }
};
var JWTExpired = class extends JOSEError {
  static code = "ERR_JWT_EXPIRED";
  code = "ERR_JWT_EXPIRED";
  claim;
  reason;
  payload;
  constructor(message2, payload, claim = "unspecified", reason = "unspecified") {
    super(message2, { cause: { claim, reason, payload } }), this.claim = claim, this.reason = reason, this.payload = payload;
  }
};
var JOSEAlgNotAllowed = class extends JOSEError {
  static code = "ERR_JOSE_ALG_NOT_ALLOWED";
  code = "ERR_JOSE_ALG_NOT_ALLOWED";
};
var JOSENotSupported = class extends JOSEError {
  static code = "ERR_JOSE_NOT_SUPPORTED";
  code = "ERR_JOSE_NOT_SUPPORTED";
};
var JWEDecryptionFailed = class extends JOSEError {
  static code = "ERR_JWE_DECRYPTION_FAILED";
  code = "ERR_JWE_DECRYPTION_FAILED";
  constructor(message2 = "decryption operation failed", options) {
    super(message2, options);
  }
};
var JWEInvalid = class extends JOSEError {
  static code = "ERR_JWE_INVALID";
  code = "ERR_JWE_INVALID";
};
var JWSInvalid = class extends JOSEError {
  static code = "ERR_JWS_INVALID";
  code = "ERR_JWS_INVALID";
};
var JWTInvalid = class extends JOSEError {
  static code = "ERR_JWT_INVALID";
  code = "ERR_JWT_INVALID";
};
var JWKInvalid = class extends JOSEError {
  static code = "ERR_JWK_INVALID";
  code = "ERR_JWK_INVALID";
};
var JWKSInvalid = class extends JOSEError {
  static code = "ERR_JWKS_INVALID";
  code = "ERR_JWKS_INVALID";
};
var JWKSNoMatchingKey = class extends JOSEError {
  static code = "ERR_JWKS_NO_MATCHING_KEY";
  code = "ERR_JWKS_NO_MATCHING_KEY";
  constructor(message2 = "no applicable key found in the JSON Web Key Set", options) {
    super(message2, options);
  }
};
var JWKSMultipleMatchingKeys = class extends JOSEError {
  [Symbol.asyncIterator] = async function* () {
  };
  static code = "ERR_JWKS_MULTIPLE_MATCHING_KEYS";
  code = "ERR_JWKS_MULTIPLE_MATCHING_KEYS";
  constructor(message2 = "multiple matching keys found in the JSON Web Key Set", options) {
    super(message2, options);
  }
};
var JWKSTimeout = class extends JOSEError {
  static code = "ERR_JWKS_TIMEOUT";
  code = "ERR_JWKS_TIMEOUT";
  constructor(message2 = "request timed out", options) {
    super(message2, options);
  }
};
var JWSSignatureVerificationFailed = class extends JOSEError {
  static code = "ERR_JWS_SIGNATURE_VERIFICATION_FAILED";
  code = "ERR_JWS_SIGNATURE_VERIFICATION_FAILED";
  constructor(message2 = "signature verification failed", options) {
    super(message2, options);
  }
};

// node_modules/jose/dist/webapi/util/base64url.js
var invalid = "The input to be decoded is not correctly encoded.";
function decode(input) {
  try {
    return decodeBase64(typeof input == "string" ? input : decoder.decode(input), true);
  } catch (cause) {
    throw new TypeError(invalid, { cause });
  }
}
function encode2(input) {
  return encodeBase64(typeof input == "string" ? encoder.encode(input) : input, true);
}

// node_modules/jose/dist/webapi/lib/validate.js
function isObject(input) {
  if (typeof input != "object" || input === null || Object.prototype.toString.call(input) !== "[object Object]")
    return false;
  const prototype = Object.getPrototypeOf(input);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}
function isJwkSet(input) {
  return isObject(input) && Array.isArray(input.keys) && Array.from(input.keys).every(isObject);
}
function isDisjoint(...headers) {
  const parameters = /* @__PURE__ */ new Set();
  for (const header of headers)
    if (header)
      for (const parameter of Object.keys(header)) {
        if (parameters.has(parameter))
          return false;
        parameters.add(parameter);
      }
  return true;
}
function assertNotSet(value, name) {
  if (value !== void 0)
    throw new TypeError(`${name} can only be called once`);
}
function decodeBase64url(value, label, ErrorClass) {
  try {
    return decode(value);
  } catch (cause) {
    throw new ErrorClass(`Failed to base64url decode the ${label}`, { cause });
  }
}
function encodeAsciiMember(value, label, ErrorClass) {
  try {
    return encode(value);
  } catch (cause) {
    throw new ErrorClass(`The ${label} is not a valid base64url string`, { cause });
  }
}
function parseJoseHeader(encodedProtectedHeader, ErrorClass, message2) {
  let parsed;
  try {
    parsed = JSON.parse(strictDecoder.decode(decode(encodedProtectedHeader)));
  } catch (cause) {
    throw new ErrorClass(message2, { cause });
  }
  if (!isObject(parsed))
    throw new ErrorClass(message2);
  return parsed;
}
var JWS_RECOGNIZED = { __proto__: null, b64: true };
function validateAlgorithms(option, algorithms) {
  if (algorithms !== void 0 && (!Array.isArray(algorithms) || algorithms.some((s) => typeof s != "string")))
    throw new TypeError(`"${option}" option must be an array of strings`);
  return algorithms === void 0 ? void 0 : new Set(algorithms);
}
function validateCritDuplicates(Err, protectedHeader) {
  const { crit } = protectedHeader ?? {};
  if (Array.isArray(crit) && new Set(crit).size !== crit.length)
    throw new Err('"crit" (Critical) Header Parameter MUST NOT contain duplicate values');
}
function validateCrit(Err, recognizedDefault, recognizedOption, protectedHeader, joseHeader) {
  if (joseHeader.crit !== void 0 && protectedHeader?.crit === void 0)
    throw new Err('"crit" (Critical) Header Parameter MUST be integrity protected');
  if (!protectedHeader || protectedHeader.crit === void 0)
    return [];
  if (!Array.isArray(protectedHeader.crit) || protectedHeader.crit.length === 0 || protectedHeader.crit.some((input) => typeof input != "string" || input.length === 0))
    throw new Err('"crit" (Critical) Header Parameter MUST be an array of non-empty strings when present');
  const recognized = recognizedOption === void 0 ? recognizedDefault : { __proto__: null, ...recognizedOption, ...recognizedDefault };
  for (const parameter of protectedHeader.crit) {
    if (!(parameter in recognized))
      throw new JOSENotSupported(`Extension Header Parameter "${parameter}" is not recognized`);
    if (!Object.hasOwn(joseHeader, parameter) || joseHeader[parameter] === void 0)
      throw new Err(`Extension Header Parameter "${parameter}" is missing`);
    if (recognized[parameter] && (!Object.hasOwn(protectedHeader, parameter) || protectedHeader[parameter] === void 0))
      throw new Err(`Extension Header Parameter "${parameter}" MUST be integrity protected`);
  }
  return protectedHeader.crit;
}
function validateB64(protectedHeader, extensions) {
  if (extensions.includes("b64")) {
    const b64 = protectedHeader.b64;
    if (typeof b64 != "boolean")
      throw new JWSInvalid('The "b64" (base64url-encode payload) Header Parameter must be a boolean');
    return b64;
  }
  return true;
}
function serializeJoseHeader(Err, header) {
  let serialized, parsed;
  try {
    serialized = JSON.stringify(header), parsed = JSON.parse(serialized);
  } catch (cause) {
    throw new Err("JOSE Header is not valid JSON", { cause });
  }
  if (!isObject(parsed))
    throw new Err("JOSE Header is not a JSON object");
  return [parsed, serialized];
}

// node_modules/jose/dist/webapi/lib/key.js
var tag = (key) => key[Symbol.toStringTag];
var jwkMatchesOp = (entry, key, usage) => {
  const { alg } = entry;
  if (key.use !== void 0) {
    const expected = usage === "sign" || usage === "verify" ? "sig" : "enc";
    if (key.use !== expected)
      throw new TypeError(`Invalid key for this operation, its "use" must be "${expected}" when present`);
  }
  if (key.alg !== void 0 && key.alg !== alg)
    throw new TypeError(`Invalid key for this operation, its "alg" must be "${alg}" when present`);
  if (Array.isArray(key.key_ops)) {
    const expectedKeyOp = usage === "encrypt" || usage === "decrypt" ? entry.ops?.[usage === "encrypt" ? 0 : 1] : usage;
    if (expectedKeyOp && !key.key_ops.includes(expectedKeyOp))
      throw new TypeError(`Invalid key for this operation, its "key_ops" must include "${expectedKeyOp}" when present`);
  }
};
async function prepareKey(entry, key, usage) {
  const { alg, secret } = entry, requiresPrivateKey = usage === "decrypt" || usage === "sign";
  if (secret && key instanceof Uint8Array)
    return key;
  let normalized, keyObject;
  if (isObject(key)) {
    if (normalized = normalizeJwk(key), typeof normalized.kty != "string")
      throw invalidKeyType(alg, key, secret);
    if (!(secret ? normalized.kty === "oct" && typeof normalized.k == "string" : normalized.kty !== "oct" && (requiresPrivateKey ? normalized.kty === "AKP" && typeof normalized.priv == "string" || typeof normalized.d == "string" : normalized.d === void 0 && normalized.priv === void 0)))
      throw new TypeError(secret ? 'JSON Web Key for symmetric algorithms must have JWK "kty" (Key Type) equal to "oct" and the JWK "k" (Key Value) present' : `JSON Web Key for this operation must be a ${requiresPrivateKey ? "private" : "public"} JWK`);
    if (jwkMatchesOp(entry, normalized, usage), normalized.kty === "oct")
      return decode(normalized.k);
    if (!Object.isFrozen(key)) {
      const { key_ops } = key;
      Array.isArray(key_ops) && Object.freeze(key_ops), Object.freeze(key);
    }
  } else {
    if (!isKeyLike(key))
      throw invalidKeyType(alg, key, secret);
    const expectedType = secret ? "secret" : requiresPrivateKey ? "private" : "public";
    if (key.type !== expectedType && (secret || ["secret", "public", "private"].includes(key.type)))
      throw new TypeError(`${tag(key)} instances must be of type "${expectedType}" for the ${alg} algorithm`);
    if (isCryptoKey(key))
      return key;
    if (keyObject = key, keyObject.type === "secret")
      return keyObject.export();
  }
  cache ||= /* @__PURE__ */ new WeakMap();
  const cacheKey = key;
  let cached = cache.get(cacheKey);
  if (cached?.[alg])
    return cached[alg];
  if (cached || cache.set(cacheKey, cached = {}), keyObject && typeof keyObject.toCryptoKey == "function") {
    const isPublic = keyObject.type === "public", crv = nist[keyObject.asymmetricKeyDetails?.namedCurve], params = entry.resolve?.({ crv, asymmetricKeyType: keyObject.asymmetricKeyType }) ?? entry.subtle;
    return cached[alg] = keyObject.toCryptoKey(params, isPublic, entry.usages[isPublic ? 0 : 1]);
  }
  return normalized ??= keyObject.export({ format: "jwk" }), normalized.alg = alg, cached[alg] = await jwkToKey(entry, normalized);
}
var cache;
var nist = {
  __proto__: null,
  prime256v1: "P-256",
  secp384r1: "P-384",
  secp521r1: "P-521"
};
var isCryptoKey = (key) => {
  if (key?.[Symbol.toStringTag] === "CryptoKey")
    return true;
  try {
    return key instanceof CryptoKey;
  } catch {
    return false;
  }
};
var isKeyObject = (key) => key?.[Symbol.toStringTag] === "KeyObject";
var isKeyLike = (key) => isCryptoKey(key) || isKeyObject(key);
function message(msg, actual, ...types) {
  if (types.length > 2) {
    const last = types.pop();
    msg += `one of type ${types.join(", ")}, or ${last}.`;
  } else types.length === 2 ? msg += `one of type ${types[0]} or ${types[1]}.` : msg += `of type ${types[0]}.`;
  return actual == null ? msg += ` Received ${actual}` : typeof actual == "function" && actual.name ? msg += ` Received function ${actual.name}` : typeof actual == "object" && actual != null && actual.constructor?.name && (msg += ` Received an instance of ${actual.constructor.name}`), msg;
}
function invalidKeyType(alg, actual, secret) {
  const types = ["CryptoKey", "KeyObject", "JSON Web Key"];
  return secret && types.push("Uint8Array"), new TypeError(message(`Key for the ${alg} algorithm must be `, actual, ...types));
}
var unusable = (name, prop = "algorithm.name") => new TypeError(`CryptoKey does not support this operation, its ${prop} must be ${name}`);
function checkUsage(key, usage) {
  if (usage && !key.usages.includes(usage))
    throw new TypeError(`CryptoKey does not support this operation, its usages must include ${usage}.`);
}
function checkModulusLength(alg, key) {
  const { modulusLength } = key.algorithm;
  if (typeof modulusLength != "number" || modulusLength < 2048)
    throw new TypeError(`${alg} requires key modulusLength to be 2048 bits or larger`);
}
function checkCryptoKey(key, expected, usage) {
  const algorithm = key.algorithm;
  if (algorithm.name !== expected.name)
    throw unusable(expected.name);
  if (expected.hash && algorithm.hash?.name !== expected.hash)
    throw unusable(expected.hash, "algorithm.hash");
  if (expected.namedCurve && algorithm.namedCurve !== expected.namedCurve)
    throw unusable(expected.namedCurve, "algorithm.namedCurve");
  if (expected.length !== void 0 && algorithm.length !== expected.length)
    throw unusable(expected.length, "algorithm.length");
  checkUsage(key, usage);
}
function snapshotJwk(jwk) {
  return { __proto__: null, ...jwk };
}
function normalizeJwk(jwk) {
  const normalized = snapshotJwk(jwk);
  if (normalized.ext !== void 0 && typeof normalized.ext != "boolean")
    throw new TypeError('"ext" (Extractable) Parameter must be a boolean');
  if (normalized.key_ops !== void 0) {
    const value = normalized.key_ops, keyOps = Array.isArray(value) ? [...value] : void 0;
    if (!keyOps || keyOps.some((operation) => typeof operation != "string") || new Set(keyOps).size !== keyOps.length)
      throw new TypeError('"key_ops" (Key Operations) Parameter must be an array of unique strings');
    normalized.key_ops = keyOps;
  }
  return normalized;
}
async function jwkToKey(entry, jwk, extractable) {
  if (!entry.kty.includes(jwk.kty))
    throw new JOSENotSupported('Invalid or unsupported JWK "alg" (Algorithm) Parameter value');
  const algorithm = entry.resolve?.({ kty: jwk.kty, crv: jwk.crv }) ?? entry.subtle, isPrivate = !!(jwk.d || jwk.priv), keyData = { ...jwk, ext: extractable ?? jwk.ext };
  return keyData.kty !== "AKP" && delete keyData.alg, delete keyData.use, crypto.subtle.importKey("jwk", keyData, algorithm, keyData.ext ?? !isPrivate, jwk.key_ops ?? entry.usages[isPrivate ? 1 : 0]);
}
async function rawKey(key, expected, usage, extractable = false) {
  return key instanceof Uint8Array && (key = await crypto.subtle.importKey("raw", key, expected, extractable, [usage])), checkCryptoKey(key, expected, usage), key;
}

// node_modules/jose/dist/webapi/lib/key_descriptor.js
function table(entries) {
  const out = { __proto__: null };
  for (const alg in entries)
    out[alg] = { ...entries[alg], alg };
  return out;
}

// node_modules/jose/dist/webapi/lib/jws_algorithms.js
var sig = [["verify"], ["sign"]];
function hmac(bits) {
  const subtle = { name: "HMAC", hash: `SHA-${bits}` };
  return { kty: ["oct"], secret: true, subtle, signing: subtle, usages: sig };
}
function rsa(bits, saltLength) {
  const subtle = { name: saltLength ? "RSA-PSS" : "RSASSA-PKCS1-v1_5", hash: `SHA-${bits}` };
  return {
    kty: ["RSA"],
    subtle,
    signing: saltLength ? { ...subtle, saltLength } : subtle,
    usages: sig,
    minRsaBits: 2048
  };
}
function ecdsa(crv, bits) {
  return {
    kty: ["EC"],
    crv,
    subtle: { name: "ECDSA", namedCurve: crv },
    signing: { name: "ECDSA", hash: `SHA-${bits}` },
    usages: sig
  };
}
function eddsa() {
  const subtle = { name: "Ed25519" };
  return {
    kty: ["OKP"],
    crv: "Ed25519",
    subtle,
    signing: subtle,
    usages: sig
  };
}
function mldsa(parameterSet) {
  const subtle = { name: `ML-DSA-${parameterSet}` };
  return {
    kty: ["AKP"],
    subtle,
    signing: subtle,
    usages: sig
  };
}
var JWS = table({
  HS256: hmac(256),
  HS384: hmac(384),
  HS512: hmac(512),
  RS256: rsa(256),
  RS384: rsa(384),
  RS512: rsa(512),
  PS256: rsa(256, 32),
  PS384: rsa(384, 48),
  PS512: rsa(512, 64),
  ES256: ecdsa("P-256", 256),
  ES384: ecdsa("P-384", 384),
  ES512: ecdsa("P-521", 512),
  EdDSA: eddsa(),
  Ed25519: eddsa(),
  "ML-DSA-44": mldsa(44),
  "ML-DSA-65": mldsa(65),
  "ML-DSA-87": mldsa(87)
});
function jwsAlgorithm(alg) {
  const entry = typeof alg == "string" ? JWS[alg] : void 0;
  if (!entry)
    throw new JOSENotSupported(`alg ${alg} is not supported either by JOSE or your javascript runtime`);
  return entry;
}

// node_modules/jose/dist/webapi/lib/jws_verify.js
function prepareVerify(options) {
  return [options && validateAlgorithms("algorithms", options.algorithms), options?.crit];
}
function parseProtectedHeader(encodedProtectedHeader) {
  return encodedProtectedHeader === void 0 ? {} : parseJoseHeader(encodedProtectedHeader, JWSInvalid, "JWS Protected Header is invalid");
}
function encodeCompactUnencodedPayload(payload) {
  try {
    return encode(payload);
  } catch (cause) {
    throw new JWSInvalid("JWS Compact Serialization payload must use only ASCII characters", {
      cause
    });
  }
}
async function verifySignature(jws, shared, key, encodeUnencodedPayload, parsedProtected) {
  const { protected: encodedProtectedHeader, header, payload: inputPayload } = jws, protectedHeader = parsedProtected ?? parseProtectedHeader(encodedProtectedHeader);
  if (!isDisjoint(protectedHeader, header))
    throw new JWSInvalid("JWS Protected and JWS Unprotected Header Parameter names must be disjoint");
  const joseHeader = { ...protectedHeader, ...header }, b64 = validateB64(protectedHeader, validateCrit(JWSInvalid, JWS_RECOGNIZED, shared[1], protectedHeader, joseHeader)), { alg } = joseHeader;
  if (typeof alg != "string" || !alg)
    throw new JWSInvalid('JWS "alg" (Algorithm) Header Parameter missing or invalid');
  if (shared[0] && !shared[0].has(alg))
    throw new JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
  if (b64) {
    if (typeof inputPayload != "string")
      throw new JWSInvalid("JWS Payload must be a string");
  } else if (typeof inputPayload != "string" && !(inputPayload instanceof Uint8Array))
    throw new JWSInvalid("JWS Payload must be a string or an Uint8Array instance");
  const signingPayload = b64 || typeof inputPayload != "string" ? inputPayload : encodeUnencodedPayload(inputPayload);
  let resolvedKey = false;
  typeof key == "function" && (key = await key(protectedHeader, jws), resolvedKey = true);
  const entry = jwsAlgorithm(alg), signingInput = concat(encodedProtectedHeader !== void 0 ? encode(encodedProtectedHeader) : new Uint8Array(), encode("."), typeof signingPayload == "string" ? shared[2] ??= encodeAsciiMember(signingPayload, "payload", JWSInvalid) : signingPayload), signature = decodeBase64url(jws.signature, "signature", JWSInvalid), verificationKey = await prepareKey(entry, key, "verify"), cryptoKey = await rawKey(verificationKey, entry.subtle, "verify");
  entry.minRsaBits && checkModulusLength(entry.alg, cryptoKey);
  let verified = false;
  try {
    verified = await crypto.subtle.verify(entry.signing, cryptoKey, signature, signingInput);
  } catch (cause) {
    throw new JWSSignatureVerificationFailed(void 0, { cause });
  }
  if (!verified)
    throw new JWSSignatureVerificationFailed();
  const result = { payload: typeof signingPayload == "string" ? decodeBase64url(signingPayload, "payload", JWSInvalid) : signingPayload };
  return encodedProtectedHeader !== void 0 && (result.protectedHeader = protectedHeader), header !== void 0 && (result.unprotectedHeader = header), resolvedKey ? [{ ...result, key: verificationKey }, b64] : [result, b64];
}
async function verifyCompact(jws, shared, key) {
  if (jws instanceof Uint8Array && (jws = decoder.decode(jws)), typeof jws != "string")
    throw new JWSInvalid("Compact JWS must be a string or Uint8Array");
  const { 0: protectedHeader, 1: payload, 2: signature, length } = jws.split(".");
  if (length !== 3)
    throw new JWSInvalid("Invalid Compact JWS");
  return verifySignature({ payload, protected: protectedHeader, signature }, shared, key, encodeCompactUnencodedPayload);
}

// node_modules/jose/dist/webapi/lib/jwt_claims_set.js
var epoch = (date) => Math.floor(date.getTime() / 1e3);
var multipliers = {
  s: 1,
  m: 60,
  h: 3600,
  d: 86400,
  w: 604800,
  y: 31557600
};
var REGEX = /^(\+|\-)? ?(\d+|\d+\.\d+) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)(?: (ago|from now))?$/i;
var checkFailed = "check_failed";
function invalidDuration() {
  throw new TypeError("Invalid time period format");
}
function secs(str2) {
  typeof str2 != "string" && invalidDuration();
  const matched = REGEX.exec(str2);
  (!matched || matched[4] && matched[1]) && invalidDuration();
  const value = parseFloat(matched[2]), durationSeconds = Math.round(value * multipliers[matched[3][0].toLowerCase()]);
  return Number.isFinite(durationSeconds) || invalidDuration(), matched[1] === "-" || matched[4] === "ago" ? -durationSeconds : durationSeconds;
}
function validateInput(label, input) {
  if (!Number.isFinite(input))
    throw new TypeError(`Invalid ${label} input`);
  return input;
}
function validateStringClaim(claim, value) {
  if (typeof value != "string")
    throw new TypeError(`"${claim}" claim must be a string`);
}
function validateAudienceClaim(value) {
  if (typeof value != "string" && (!Array.isArray(value) || Array.from(value).some((member) => typeof member != "string")))
    throw new TypeError('"aud" claim must be a string or an array of strings');
}
function numericDate(value, label) {
  return typeof value == "number" ? validateInput(label, value) : value instanceof Date ? validateInput(label, epoch(value)) : epoch(/* @__PURE__ */ new Date()) + secs(value);
}
var normalizeTyp = (value) => {
  const normalized = value.toLowerCase();
  return value.includes("/") ? normalized : `application/${normalized}`;
};
var checkAudiencePresence = (audPayload, audOption) => typeof audPayload == "string" ? audOption.includes(audPayload) : Array.isArray(audPayload) ? audOption.some((aud) => audPayload.includes(aud)) : false;
function validateNumericDate(claimsSet, claim, required = false) {
  const value = claimsSet[claim];
  if (!(value === void 0 && !required)) {
    if (typeof value != "number")
      throw new JWTClaimValidationFailed(`"${claim}" claim must be a number`, claimsSet, claim, "invalid");
    return value;
  }
}
function unexpectedClaim(claimsSet, claim) {
  throw new JWTClaimValidationFailed(`unexpected "${claim}" claim value`, claimsSet, claim, checkFailed);
}
function validateClaimsSet(protectedHeader, claimsSetBytes, options = {}) {
  let claimsSet;
  try {
    claimsSet = JSON.parse(strictDecoder.decode(claimsSetBytes));
  } catch (cause) {
    throw new JWTInvalid("JWT Claims Set must be a top-level JSON object", { cause });
  }
  if (!isObject(claimsSet))
    throw new JWTInvalid("JWT Claims Set must be a top-level JSON object");
  const { typ } = options;
  if (typ !== void 0 && (typeof protectedHeader.typ != "string" || normalizeTyp(protectedHeader.typ) !== normalizeTyp(typ)))
    throw new JWTClaimValidationFailed('unexpected "typ" JWT header value', claimsSet, "typ", checkFailed);
  const { requiredClaims = [], issuer, subject, audience, maxTokenAge } = options, presenceCheck = [...requiredClaims];
  maxTokenAge !== void 0 && presenceCheck.push("iat"), audience !== void 0 && presenceCheck.push("aud"), subject !== void 0 && presenceCheck.push("sub"), issuer !== void 0 && presenceCheck.push("iss");
  for (const claim of new Set(presenceCheck.reverse()))
    if (!Object.hasOwn(claimsSet, claim))
      throw new JWTClaimValidationFailed(`missing required "${claim}" claim`, claimsSet, claim, "missing");
  issuer !== void 0 && !(Array.isArray(issuer) ? issuer : [issuer]).includes(claimsSet.iss) && unexpectedClaim(claimsSet, "iss"), subject !== void 0 && claimsSet.sub !== subject && unexpectedClaim(claimsSet, "sub"), audience !== void 0 && !checkAudiencePresence(claimsSet.aud, typeof audience == "string" ? [audience] : audience) && unexpectedClaim(claimsSet, "aud");
  const { clockTolerance } = options;
  let tolerance = 0;
  if (typeof clockTolerance == "string")
    tolerance = secs(clockTolerance);
  else if (clockTolerance !== void 0) {
    if (typeof clockTolerance != "number")
      throw new TypeError("Invalid clockTolerance option type");
    tolerance = clockTolerance;
  }
  if (validateInput("clockTolerance option", tolerance), tolerance < 0)
    throw new TypeError("Invalid clockTolerance option input");
  const { currentDate } = options, now = validateInput("currentDate option", epoch(currentDate === void 0 ? /* @__PURE__ */ new Date() : currentDate)), iat = validateNumericDate(claimsSet, "iat", maxTokenAge !== void 0), nbf = validateNumericDate(claimsSet, "nbf");
  if (nbf !== void 0 && nbf > now + tolerance)
    throw new JWTClaimValidationFailed('"nbf" claim timestamp check failed', claimsSet, "nbf", checkFailed);
  const exp = validateNumericDate(claimsSet, "exp");
  if (exp !== void 0 && exp <= now - tolerance)
    throw new JWTExpired('"exp" claim timestamp check failed', claimsSet, "exp", checkFailed);
  if (maxTokenAge !== void 0) {
    const age = now - iat, max = validateInput("maxTokenAge option", typeof maxTokenAge == "number" ? maxTokenAge : secs(maxTokenAge));
    if (max < 0)
      throw new TypeError("Invalid maxTokenAge option input");
    if (age - tolerance > max)
      throw new JWTExpired('"iat" claim timestamp check failed (too far in the past)', claimsSet, "iat", checkFailed);
    if (age < -tolerance)
      throw new JWTClaimValidationFailed('"iat" claim timestamp check failed (it should be in the past)', claimsSet, "iat", checkFailed);
  }
  return claimsSet;
}
var producerClaimsSets;
function producerClaimsSet(producer) {
  return producerClaimsSets.get(producer);
}
function jwtClaimsSetBytes(producer) {
  const claimsSet = producerClaimsSet(producer);
  for (const claim of ["iat", "nbf", "exp"]) {
    const value = claimsSet[claim];
    if (typeof value == "number" && !Number.isFinite(value))
      throw new TypeError(`"${claim}" claim must be a finite number`);
  }
  return encoder.encode(JSON.stringify(claimsSet));
}
var JWTClaimsBuilder = class {
  constructor(claimsSet = {}) {
    if (!isObject(claimsSet))
      throw new TypeError("JWT Claims Set MUST be an object");
    (producerClaimsSets ||= /* @__PURE__ */ new WeakMap()).set(this, structuredClone(claimsSet));
  }
  setIssuer(value) {
    return validateStringClaim("iss", value), producerClaimsSet(this).iss = value, this;
  }
  setSubject(value) {
    return validateStringClaim("sub", value), producerClaimsSet(this).sub = value, this;
  }
  setAudience(value) {
    return validateAudienceClaim(value), producerClaimsSet(this).aud = value, this;
  }
  setJti(value) {
    return validateStringClaim("jti", value), producerClaimsSet(this).jti = value, this;
  }
  setNotBefore(value) {
    return producerClaimsSet(this).nbf = numericDate(value, "setNotBefore"), this;
  }
  setExpirationTime(value) {
    return producerClaimsSet(this).exp = numericDate(value, "setExpirationTime"), this;
  }
  setIssuedAt(value) {
    const claimsSet = producerClaimsSet(this);
    return value === void 0 ? claimsSet.iat = epoch(/* @__PURE__ */ new Date()) : typeof value == "string" ? claimsSet.iat = validateInput("setIssuedAt", epoch(/* @__PURE__ */ new Date()) + secs(value)) : claimsSet.iat = numericDate(value, "setIssuedAt"), this;
  }
};

// node_modules/jose/dist/webapi/jwt/verify.js
async function jwtVerify(jwt, key, options) {
  const [verified, b64] = await verifyCompact(jwt, prepareVerify(options), key);
  if (!b64)
    throw new JWTInvalid("JWTs MUST NOT use unencoded payload");
  const payload = validateClaimsSet(verified.protectedHeader, verified.payload, options);
  return { ...verified, payload };
}

// node_modules/jose/dist/webapi/lib/jws_sign.js
async function createSignature(input, key, rejectUnencoded) {
  let [payload, protectedHeader, unprotectedHeader, crit] = input, encodedProtectedHeader = "";
  if (protectedHeader !== void 0) {
    const normalized = serializeJoseHeader(JWSInvalid, protectedHeader);
    protectedHeader = normalized[0], encodedProtectedHeader = encode2(normalized[1]);
  }
  if (unprotectedHeader !== void 0 && (unprotectedHeader = serializeJoseHeader(JWSInvalid, unprotectedHeader)[0]), !protectedHeader && !unprotectedHeader)
    throw new JWSInvalid("either setProtectedHeader or setUnprotectedHeader must be called before #sign()");
  if (!isDisjoint(protectedHeader, unprotectedHeader))
    throw new JWSInvalid("JWS Protected and JWS Unprotected Header Parameter names must be disjoint");
  const joseHeader = { ...protectedHeader, ...unprotectedHeader };
  validateCritDuplicates(JWSInvalid, protectedHeader);
  const b64 = validateB64(protectedHeader, validateCrit(JWSInvalid, JWS_RECOGNIZED, crit, protectedHeader, joseHeader));
  b64 || rejectUnencoded?.();
  const { alg } = joseHeader;
  if (typeof alg != "string" || !alg)
    throw new JWSInvalid('JWS "alg" (Algorithm) Header Parameter missing or invalid');
  const entry = jwsAlgorithm(alg);
  let encodedPayload = "", signingPayload = payload, signingInput;
  if (b64) {
    const encodedPayloadCache = input[4];
    encodedPayloadCache ? (encodedPayload = encodedPayloadCache[0] ??= encode2(payload), signingPayload = encodedPayloadCache[1] ??= encode(encodedPayload)) : (encodedPayload = encode2(payload), signingInput = encoder.encode(`${encodedProtectedHeader}.${encodedPayload}`));
  }
  signingInput ??= concat(encode(encodedProtectedHeader), encode("."), signingPayload);
  const signingKey = await rawKey(await prepareKey(entry, key, "sign"), entry.subtle, "sign");
  entry.minRsaBits && checkModulusLength(entry.alg, signingKey);
  const jws = {
    signature: encode2(new Uint8Array(await crypto.subtle.sign(entry.signing, signingKey, signingInput))),
    payload: encodedPayload
  };
  return protectedHeader && (jws.protected = encodedProtectedHeader), unprotectedHeader && (jws.header = unprotectedHeader), [jws, b64];
}
async function createCompactSignature(payload, protectedHeader, crit, key, rejectUnencoded) {
  const [jws] = await createSignature([payload, protectedHeader, void 0, crit], key, rejectUnencoded);
  return `${jws.protected}.${jws.payload}.${jws.signature}`;
}

// node_modules/jose/dist/webapi/jwt/sign.js
var SignJWT_base = JWTClaimsBuilder;
var SignJWT = class extends SignJWT_base {
  #protectedHeader;
  setProtectedHeader(protectedHeader) {
    return assertNotSet(this.#protectedHeader, "setProtectedHeader"), this.#protectedHeader = protectedHeader, this;
  }
  async sign(key, options) {
    return createCompactSignature(jwtClaimsSetBytes(this), this.#protectedHeader, options?.crit, key, () => {
      throw new JWTInvalid("JWTs MUST NOT use unencoded payload");
    });
  }
};

// node_modules/jose/dist/webapi/jwks/local.js
function isUsableJWK(jwk, entry, alg, kid) {
  const { kty, key_ops: keyOps, ext, kid: jwkKid, alg: jwkAlg, use, crv } = jwk;
  return (ext === void 0 || typeof ext == "boolean") && (keyOps === void 0 || Array.isArray(keyOps) && keyOps.every((operation, index) => typeof operation == "string" && keyOps.indexOf(operation) === index) && keyOps.includes("verify")) && entry.kty.includes(kty) && (kid === void 0 || typeof kid == "string" && kid === jwkKid) && (jwkAlg === void 0 ? kty !== "AKP" : alg === jwkAlg) && (use === void 0 || use === "sig") && (!entry.crv || crv === entry.crv);
}
async function importWithAlgCache(cache2, jwk, entry) {
  const cached = cache2.get(jwk) || cache2.set(jwk, {}).get(jwk), { alg } = entry;
  if (cached[alg] === void 0) {
    const pending = jwkToKey(entry, jwk, true).then((key) => {
      if (key.type !== "public")
        throw new JWKSInvalid("JSON Web Key Set members must be public keys");
      return cached[alg] = key, key;
    }).catch((error2) => {
      throw cached[alg] === pending && delete cached[alg], error2;
    });
    cached[alg] = pending;
  }
  return cached[alg];
}
function createLocalJWKSet(jwks) {
  let snapshot;
  try {
    snapshot = structuredClone(jwks);
  } catch (cause) {
    throw new JWKSInvalid("JSON Web Key Set malformed", { cause });
  }
  if (!isJwkSet(snapshot))
    throw new JWKSInvalid("JSON Web Key Set malformed");
  const metadata = snapshot.keys.map((jwk) => {
    const normalized = snapshotJwk(jwk);
    return Array.isArray(normalized.key_ops) && (normalized.key_ops = [...normalized.key_ops]), normalized;
  }), cached = /* @__PURE__ */ new WeakMap();
  return Object.defineProperty(async (protectedHeader, token) => {
    const { alg, kid } = { ...protectedHeader, ...token?.header }, entry = typeof alg == "string" ? JWS[alg] : void 0;
    if (!entry || entry.secret)
      throw new JOSENotSupported('Unsupported "alg" value for a JSON Web Key Set');
    const candidates = snapshot.keys.filter((_, index) => isUsableJWK(metadata[index], entry, alg, kid)), { 0: jwk, length } = candidates;
    if (!length)
      throw new JWKSNoMatchingKey();
    if (length !== 1) {
      const error2 = new JWKSMultipleMatchingKeys();
      throw error2[Symbol.asyncIterator] = async function* () {
        for (const jwk2 of candidates)
          try {
            yield await importWithAlgCache(cached, jwk2, entry);
          } catch {
          }
      }, error2;
    }
    return importWithAlgCache(cached, jwk, entry);
  }, "jwks", {
    value: () => structuredClone(snapshot)
  });
}

// node_modules/jose/dist/webapi/jwks/remote.js
function isCloudflareWorkers() {
  return typeof WebSocketPair < "u" || typeof navigator < "u" && navigator.userAgent === "Cloudflare-Workers" || typeof EdgeRuntime < "u" && EdgeRuntime === "vercel";
}
var USER_AGENT;
(typeof navigator > "u" || !navigator.userAgent?.startsWith?.("Mozilla/5.0 ")) && (USER_AGENT = "jose/v6.2.17");
var customFetch = /* @__PURE__ */ Symbol();
async function fetchJwks(url, headers, signal, fetchImpl = fetch) {
  const response = await fetchImpl(url, {
    method: "GET",
    signal,
    redirect: "manual",
    headers
  }).catch((err) => {
    throw err.name === "TimeoutError" ? new JWKSTimeout(void 0, { cause: err }) : err;
  });
  if (response.status !== 200)
    throw new JOSEError("Expected 200 OK from the JSON Web Key Set HTTP response");
  try {
    return await response.json();
  } catch (cause) {
    throw new JOSEError("Failed to parse the JSON Web Key Set HTTP response as JSON", { cause });
  }
}
var jwksCache = /* @__PURE__ */ Symbol();
function isFreshFor(timestamp, duration) {
  return Number.isFinite(timestamp) && Date.now() < timestamp + duration;
}
function validateDuration(value, fallback2, option) {
  if (Number.isNaN(value))
    throw new TypeError(`"${option}" option must not be NaN`);
  if (typeof value == "number" && value < 0)
    throw new TypeError(`"${option}" option must not be negative`);
  return typeof value == "number" ? value : fallback2;
}
function createRemoteJWKSet(url, options) {
  if (!(url instanceof URL))
    throw new TypeError("url must be an instance of URL");
  const href = new URL(url.href).href, opts = options ?? {}, timeoutOption = opts.timeoutDuration;
  if (typeof timeoutOption == "number" && (!Number.isInteger(timeoutOption) || timeoutOption < 0))
    throw new TypeError('"timeoutDuration" option must be a non-negative integer');
  const timeoutDuration = typeof timeoutOption == "number" ? timeoutOption : 5e3, cooldownDuration = validateDuration(opts.cooldownDuration, 3e4, "cooldownDuration"), cacheMaxAge = validateDuration(opts.cacheMaxAge, 6e5, "cacheMaxAge"), headers = new Headers(opts.headers);
  USER_AGENT && !headers.has("User-Agent") && headers.set("User-Agent", USER_AGENT), headers.has("accept") || headers.set("accept", "application/json, application/jwk-set+json");
  const fetchImpl = opts[customFetch], cache2 = opts[jwksCache];
  let jwksTimestamp, pendingFetch, reloadSequence = 0, appliedSequence = 0, local;
  if (cache2 && typeof cache2 == "object") {
    const { uat, jwks } = cache2;
    isFreshFor(uat, cacheMaxAge) && isJwkSet(jwks) && (jwksTimestamp = uat, local = createLocalJWKSet(jwks));
  }
  const reload = async () => {
    if (pendingFetch && isCloudflareWorkers() && (pendingFetch = void 0), !pendingFetch) {
      const sequence = ++reloadSequence, current = pendingFetch = fetchJwks(href, headers, AbortSignal.timeout(timeoutDuration), fetchImpl).then((json) => {
        const next = createLocalJWKSet(json);
        if (sequence <= appliedSequence)
          return;
        local = next;
        const updatedAt = Date.now();
        cache2 && (cache2.uat = updatedAt, cache2.jwks = json), jwksTimestamp = updatedAt, appliedSequence = sequence;
      }).finally(() => {
        pendingFetch === current && (pendingFetch = void 0);
      });
    }
    await pendingFetch;
  };
  return Object.defineProperties(async (protectedHeader, token) => {
    (!local || !isFreshFor(jwksTimestamp, cacheMaxAge)) && await reload();
    try {
      return await local(protectedHeader, token);
    } catch (err) {
      if (err instanceof JWKSNoMatchingKey && !isFreshFor(jwksTimestamp, cooldownDuration))
        return await reload(), local(protectedHeader, token);
      throw err;
    }
  }, {
    coolingDown: {
      get: () => isFreshFor(jwksTimestamp, cooldownDuration),
      enumerable: true
    },
    fresh: {
      get: () => isFreshFor(jwksTimestamp, cacheMaxAge),
      enumerable: true
    },
    reload: {
      value: reload,
      enumerable: true
    },
    reloading: {
      get: () => !!pendingFetch,
      enumerable: true
    },
    jwks: {
      value: () => local?.jwks(),
      enumerable: true
    }
  });
}

// node_modules/jose/dist/webapi/util/decode_jwt.js
function decodeJwt(jwt) {
  if (typeof jwt != "string")
    throw new JWTInvalid("JWTs must use Compact JWS serialization, JWT must be a string");
  const { 1: encodedPayload, length } = jwt.split(".");
  if (length === 5)
    throw new JWTInvalid("Only JWTs using Compact JWS serialization can be decoded");
  if (length !== 3)
    throw new JWTInvalid("Invalid JWT");
  if (!encodedPayload)
    throw new JWTInvalid("JWTs must contain a payload");
  let claimsSetBytes;
  try {
    claimsSetBytes = decode(encodedPayload);
  } catch (cause) {
    throw new JWTInvalid("Failed to base64url decode the payload", { cause });
  }
  let claimsSet;
  try {
    claimsSet = JSON.parse(strictDecoder.decode(claimsSetBytes));
  } catch (cause) {
    throw new JWTInvalid("Failed to parse the decoded payload as JSON", { cause });
  }
  if (!isObject(claimsSet))
    throw new JWTInvalid("Invalid JWT Claims Set");
  return claimsSet;
}

// lib/src/auth/claims.ts
function principalFromClaims(claims, namespace, issuer) {
  const bad = (claim, why) => new errors_exports.JWTClaimValidationFailed(`"${claim}" claim ${why}`, claims, claim, "check_failed");
  const sub = claims.sub;
  if (typeof sub !== "string" || sub === "") throw bad("sub", "must be a non-empty string");
  const ns = (name) => claims[`${namespace}${name}`];
  const scopes = /* @__PURE__ */ new Set([
    ...strings(claims.permissions),
    ...typeof claims.scope === "string" ? claims.scope.split(" ").filter(Boolean) : []
  ]);
  let agentSubject;
  if (claims.act !== void 0) {
    const act = claims.act;
    if (typeof act !== "object" || act === null || Array.isArray(act))
      throw bad("act", "must be an object");
    agentSubject = str(act.sub);
    if (!agentSubject) throw bad("act", "must name the agent in act.sub");
    if (!agentSubject.startsWith("agent|"))
      throw bad(
        "act",
        `act.sub must name an agent (agent|...), not ${JSON.stringify(agentSubject)}`
      );
    if (issuer !== void 0 && act.iss !== issuer)
      throw bad("act", "must carry the issuer in act.iss");
  }
  const machine = !agentSubject && (claims.gty === "client-credentials" || sub.endsWith("@clients"));
  return {
    sub,
    actorType: agentSubject ? "agent" : machine ? "machine" : "user",
    onBehalfOfSub: agentSubject ? sub : void 0,
    agentSubject,
    delegated: claims.svc_delegated === true,
    orgId: str(ns("org_id")) ?? str(claims.org_id),
    teamId: str(ns("team_id")),
    workspaceId: str(ns("workspace_id")),
    projectId: str(ns("project_id")),
    labId: str(ns("lab_id")),
    internalUserId: str(ns("internal_user_id")) ?? str(ns("user_id")),
    connection: str(ns("connection")),
    roles: strings(ns("roles")),
    scopes: [...scopes],
    acr: str(claims.acr),
    amr: strings(claims.amr),
    authTime: typeof claims.auth_time === "number" ? claims.auth_time : void 0,
    expiresAt: claims.exp,
    issuedAt: claims.iat
  };
}
function str(v) {
  return typeof v === "string" && v !== "" ? v : void 0;
}
function strings(v) {
  return Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
}

// lib/src/auth/canonical-subject.ts
import { createRequire } from "node:module";
var prototypes;
function prototypeOf(ch) {
  prototypes ??= new Map(
    Object.entries(
      createRequire(new URL("../../lib/src/auth/canonical-subject.ts", import.meta.url).href)("unhomoglyph/data.json")
    )
  );
  return prototypes.get(ch) ?? ch;
}
var INVISIBLE = /[\p{Default_Ignorable_Code_Point}\u115f\u1160\u3164\uffa0\u2800]/gu;
var MARKS = new RegExp("\\p{M}", "gu");
var TRAILING = /[.\p{White_Space}]+$/u;
function visible(sub) {
  return sub.normalize("NFKC").replace(INVISIBLE, "").trim();
}
function skeleton(s) {
  let mapped = "";
  for (const ch of s.normalize("NFD")) mapped += prototypeOf(ch);
  return mapped.normalize("NFD").replace(MARKS, "").replace(TRAILING, "");
}
function canonicalSubject(sub) {
  return skeleton(skeleton(visible(sub).toLowerCase()).toLowerCase());
}
function sameSubject(a, b) {
  return canonicalSubject(a) === canonicalSubject(b) || skeleton(visible(a)) === skeleton(visible(b));
}

// lib/src/auth/token-cache.ts
function createTokenCache(maxEntries) {
  const entries = /* @__PURE__ */ new Map();
  return {
    get(key, nowMs = Date.now()) {
      const hit = entries.get(key);
      if (!hit) return void 0;
      if (hit.expiresAtMs > nowMs) return hit.value;
      entries.delete(key);
      return void 0;
    },
    set(key, value, expiresAtMs) {
      if (maxEntries <= 0) return;
      entries.delete(key);
      while (entries.size >= maxEntries) entries.delete(entries.keys().next().value);
      entries.set(key, { value, expiresAtMs });
    },
    get size() {
      return entries.size;
    }
  };
}

// lib/src/auth/token-errors.ts
var KeySetUnreachable = class extends Error {
  /** @example throw new KeySetUnreachable(err); */
  constructor(cause) {
    super("the JWKS cannot be fetched", { cause });
    this.name = "KeySetUnreachable";
  }
};
function jwksUnreachable(cause) {
  return svcError(
    Code.Unavailable,
    "jwks_unreachable",
    "the identity provider's signing keys (JWKS) cannot be fetched; no token can be verified, retry shortly",
    {},
    { cause }
  );
}
function invalidToken(why, kind, cause) {
  return svcError(
    Code.Unauthenticated,
    "invalid_token",
    `the ${kind === "user" ? "" : `${kind} `}access token is not accepted: ${why}`,
    { reason: why },
    {
      headers: {
        "www-authenticate": `Bearer error="invalid_token", error_description="${why.replaceAll('"', "'")}"`
      },
      cause
    }
  );
}
function tokenErrorOf(err, kind) {
  if (err instanceof KeySetUnreachable) return jwksUnreachable(err.cause);
  const invalid2 = (why) => invalidToken(why, kind, err);
  if (err instanceof errors_exports.JWTExpired) return invalid2("the token has expired");
  if (err instanceof errors_exports.JWTClaimValidationFailed) {
    if (err.reason === "missing") return invalid2(`the token lacks the required ${err.claim} claim`);
    if (err.claim === "nbf") return invalid2("the token is not valid yet (nbf is in the future)");
    if (err.claim === "iat") return invalid2("the token was issued in the future (iat)");
    if (err.claim === "iss") return invalid2("the token was issued by another issuer");
    if (err.claim === "aud")
      return invalid2(
        kind === "machine" ? "the machine token's audience does not match SVC_AUTH_M2M_AUDIENCE" : "the token is for another audience"
      );
    return invalid2(`the ${err.claim} claim is invalid: ${err.message}`);
  }
  if (err instanceof errors_exports.JOSEAlgNotAllowed)
    return invalid2("the token's signing algorithm is not allowed");
  if (err instanceof errors_exports.JWKSNoMatchingKey || err instanceof errors_exports.JWKSMultipleMatchingKeys)
    return invalid2("no signing key of the issuer matches the token's kid");
  if (err instanceof errors_exports.JWSSignatureVerificationFailed)
    return invalid2("the signature does not verify");
  if (err instanceof errors_exports.JOSENotSupported)
    return invalid2("the token uses an unsupported algorithm or key type");
  return invalid2("the token is malformed");
}

// lib/src/auth/token-verifier.ts
function createTokenVerifier(settings) {
  if (settings.provider !== "oidc") {
    return {
      verify: async (_token, kind) => Promise.reject(
        invalidToken(
          "bearer tokens are not accepted: the platform runs with SVC_AUTH_PROVIDER=local",
          kind
        )
      )
    };
  }
  assertValidAuthSettings(settings);
  const remote = createRemoteJWKSet(jwksUriOf(settings), {
    timeoutDuration: settings.jwksTimeoutMs,
    cooldownDuration: settings.jwksCooldownMs
  });
  const failFastMs = Math.min(settings.jwksCooldownMs, 1e3);
  let fetchFailedAt = -Infinity;
  const keys = async (header, token) => {
    if (!remote.fresh && Date.now() - fetchFailedAt < failFastMs)
      throw new KeySetUnreachable(new Error("the last JWKS fetch failed moments ago"));
    try {
      return await remote(header, token);
    } catch (err) {
      if (err instanceof errors_exports.JWKSNoMatchingKey || err instanceof errors_exports.JWKSMultipleMatchingKeys || err instanceof errors_exports.JOSENotSupported)
        throw err;
      fetchFailedAt = Date.now();
      throw new KeySetUnreachable(err);
    }
  };
  const cache2 = createTokenCache(settings.tokenCacheSize);
  const options = (kind) => ({
    issuer: settings.issuer,
    audience: kind === "service" ? settings.serviceAudience : kind === "machine" ? settings.m2mAudience ?? settings.audience : settings.audience,
    algorithms: settings.algorithms,
    requiredClaims: ["exp", "sub"],
    clockTolerance: settings.clockToleranceSeconds
  });
  return {
    async verify(token, kind) {
      const cacheKey = `${kind}\0${token}`;
      const hit = cache2.get(cacheKey);
      if (hit) return hit;
      let principal;
      try {
        const { payload } = await verifyWithKeySet(token, keys, options(kind));
        assertIssuedInThePast(payload, settings.clockToleranceSeconds);
        principal = deepFreeze(
          principalFromClaims(payload, settings.claimsNamespace, settings.issuer)
        );
      } catch (err) {
        throw tokenErrorOf(err, kind);
      }
      cache2.set(cacheKey, principal, principal.expiresAt * 1e3);
      return principal;
    }
  };
}
function assertIssuedInThePast(payload, toleranceSeconds) {
  const nowSeconds = Math.floor(Date.now() / 1e3);
  if (typeof payload.iat === "number" && payload.iat > nowSeconds + toleranceSeconds)
    throw new errors_exports.JWTClaimValidationFailed(
      `"iat" claim is ${payload.iat - nowSeconds} seconds in the future`,
      payload,
      "iat",
      "check_failed"
    );
}
async function verifyWithKeySet(token, keys, options) {
  try {
    return await jwtVerify(token, keys, options);
  } catch (err) {
    if (!(err instanceof errors_exports.JWKSMultipleMatchingKeys)) throw err;
    for await (const key of err) {
      try {
        return await jwtVerify(token, key, options);
      } catch (inner) {
        if (!(inner instanceof errors_exports.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new errors_exports.JWSSignatureVerificationFailed();
  }
}
function deepFreeze(o) {
  for (const v of Object.values(o)) if (typeof v === "object" && v !== null) Object.freeze(v);
  return Object.freeze(o);
}

// lib/src/auth/local-provider.ts
var LOCAL_USER_HEADER = "x-svc-local-user";
var LOCAL_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
function localPrincipal(headers, nowSeconds = Math.floor(Date.now() / 1e3)) {
  const chosen = headers.get(LOCAL_USER_HEADER);
  if (chosen !== null && !LOCAL_NAME.test(chosen)) {
    throw svcError(
      Code.InvalidArgument,
      "invalid_argument",
      `${LOCAL_USER_HEADER} must match ${LOCAL_NAME.source}`,
      { field: LOCAL_USER_HEADER }
    );
  }
  return {
    sub: `local|${chosen ?? "default"}`,
    actorType: "local",
    delegated: false,
    roles: ["admin"],
    scopes: ["*"],
    acr: MFA_ACR,
    amr: ["mfa"],
    authTime: nowSeconds
  };
}

// lib/src/auth/step-up.ts
var MFA_METHODS = /* @__PURE__ */ new Set(["mfa", "otp"]);
function assertSteppedUp(p, limits, nowSeconds = Math.floor(Date.now() / 1e3)) {
  const why = stepUpShortfall(p, limits, nowSeconds);
  if (!why) return;
  throw svcError(
    Code.Unauthenticated,
    "insufficient_user_authentication",
    why,
    { acr_values: MFA_ACR, max_age: 0 },
    {
      headers: {
        "www-authenticate": `Bearer error="insufficient_user_authentication", error_description="${why}", acr_values="${MFA_ACR}", max_age=0`
      }
    }
  );
}
function stepUpShortfall(p, { stepUpMaxAgeSeconds: maxAge, clockToleranceSeconds: tolerance }, nowSeconds) {
  const mfa = p.amr.some((m) => MFA_METHODS.has(m)) || p.acr === MFA_ACR;
  if (!mfa) return "this route needs a token obtained with multi-factor authentication";
  if (p.authTime === void 0)
    return "this route needs a token that says when you authenticated (auth_time)";
  const age = nowSeconds - p.authTime;
  if (age < -tolerance)
    return `this route needs a recent authentication; your auth_time is ${-age} seconds in the future, beyond the ${tolerance} seconds of clock tolerance`;
  if (age > maxAge)
    return `this route needs an authentication no older than ${maxAge} seconds; yours is ${age} seconds old`;
  return void 0;
}

// lib/src/auth/bearer.ts
var BEARER_CHALLENGE = 'Bearer realm="svc"';
function bearerOf(header) {
  if (header === null) return void 0;
  const m = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(header.trim());
  if (!m) {
    throw svcError(
      Code.Unauthenticated,
      "unauthenticated",
      "the Authorization header must be: Bearer <access token>",
      {},
      { headers: { "www-authenticate": BEARER_CHALLENGE } }
    );
  }
  return m[1];
}
function missingBearer() {
  return svcError(
    Code.Unauthenticated,
    "unauthenticated",
    "this route needs a bearer access token (Authorization: Bearer <token>)",
    {},
    { headers: { "www-authenticate": BEARER_CHALLENGE } }
  );
}

// lib/src/auth/delegated-scopes.ts
var DEFAULT_CAPACITY = 1e4;
function createDelegatedScopeGuard(capacity = DEFAULT_CAPACITY) {
  const known = /* @__PURE__ */ new Map();
  return {
    observe(person) {
      if (person.actorType !== "user" || person.delegated || person.issuedAt === void 0) return;
      const seen = known.get(person.sub);
      if (seen && seen.issuedAt > person.issuedAt) return;
      known.delete(person.sub);
      if (known.size >= capacity) known.delete(known.keys().next().value);
      known.set(person.sub, { scopes: new Set(person.scopes), issuedAt: person.issuedAt });
    },
    revoked(agent) {
      if (agent.actorType !== "agent" || agent.onBehalfOfSub === void 0) return [];
      const person = known.get(agent.onBehalfOfSub);
      if (!person || person.issuedAt < (agent.issuedAt ?? 0)) return [];
      return agent.scopes.filter((s) => !person.scopes.has(s));
    }
  };
}
function delegatedScopeRevoked(agent, scope) {
  return svcError(
    Code.PermissionDenied,
    "delegated_scope_revoked",
    `${agent.onBehalfOfSub} no longer holds ${scope}: the agent ${agent.agentSubject} cannot use it through a delegation minted before`,
    { scope }
  );
}

// lib/src/auth/membership-lookup.ts
var assumedMembershipKey = createContextKey(void 0, {
  description: "membership assumed for a halt"
});
function assertMembershipVerified(ctx) {
  const assumed = ctx.values.get(assumedMembershipKey);
  if (assumed)
    throw svcError(
      Code.Unavailable,
      "membership_unverifiable",
      `the identity service did not answer (membership ${assumed.source === "cached" ? "taken from its last answer" : "not known"}); this lifts a halt, which needs a checked membership: only halting goes without one`,
      {},
      { headers: { "retry-after": "1" } }
    );
}
var freshMembershipCheckKey = createContextKey(
  void 0,
  { description: "the caller's membership, asked of the identity service afresh" }
);
async function assertMembershipFresh(ctx) {
  assertMembershipVerified(ctx);
  const check = ctx.values.get(freshMembershipCheckKey);
  if (check && !await check())
    throw svcError(
      Code.PermissionDenied,
      "membership_required",
      "the caller has no membership in this organization any more; lifting a halt needs one"
    );
}
var LAST_KNOWN_MEMBERSHIP_MAX_AGE_MS = 24 * 36e5;
function createMembershipLookup(opts) {
  const now = opts.now ?? Date.now;
  const maxAgeMs = opts.lastKnownMaxAgeMs ?? LAST_KNOWN_MEMBERSHIP_MAX_AGE_MS;
  const known = /* @__PURE__ */ new Map();
  const fresh = (hit) => now() - hit.at < (hit.member ? opts.ttlMs : opts.negativeTtlMs);
  const ask = async (subject, timeoutMs) => {
    const member = await withDeadline(opts.countOf(subject), timeoutMs, "identity service") > 0;
    if (known.size > 1e4) known.clear();
    known.set(subject, { member, at: now() });
    return member;
  };
  const subjectOf = (p) => p.onBehalfOfSub ?? p.sub;
  const verify = async (p, cached) => {
    const subject = subjectOf(p);
    const hit = known.get(subject);
    if (cached && hit && fresh(hit)) return hit.member;
    try {
      return await ask(subject, opts.timeoutMs);
    } catch (err) {
      throw svcError(
        Code.Unavailable,
        "membership_unverifiable",
        `the identity service could not say whether ${subject} is a member (${err.message}); strict enforcement refuses until it can`,
        {},
        { cause: err, headers: { "retry-after": "1" } }
      );
    }
  };
  const check = (p) => verify(p, true);
  const afresh = (p) => verify(p, false);
  const forHalt = async (p) => {
    const subject = subjectOf(p);
    const hit = known.get(subject);
    if (hit && fresh(hit)) return { member: hit.member, source: "verified" };
    try {
      return {
        member: await ask(subject, opts.haltTimeoutMs ?? HALT_MEMBERSHIP_CHECK_MS),
        source: "verified"
      };
    } catch {
      const ageMs = hit ? now() - hit.at : Infinity;
      if (hit && ageMs <= maxAgeMs) return { member: hit.member, source: "cached", ageMs };
      return { member: true, source: "unverified_halt" };
    }
  };
  return Object.assign(check, { forHalt, fresh: afresh });
}

// lib/src/auth/service-identity.ts
var SERVICE_CLIENT_PREFIX = "svc-service-";
function serviceAudienceOf(service) {
  return `urn:svc:service:${service}`;
}
function serviceOfClient(clientId) {
  return clientId.startsWith(SERVICE_CLIENT_PREFIX) && clientId.length > SERVICE_CLIENT_PREFIX.length ? clientId.slice(SERVICE_CLIENT_PREFIX.length) : void 0;
}
function serviceOfTypeName(typeName) {
  return typeName.split(".")[1] ?? typeName;
}
function servicePrincipal(service) {
  return {
    sub: `service|${service}`,
    actorType: "machine",
    delegated: false,
    roles: [],
    scopes: [],
    amr: []
  };
}

// lib/src/auth/service-principal.ts
function callerNotAllowed(service, method, allowed) {
  return svcError(
    Code.PermissionDenied,
    "caller_not_allowed",
    `the ${service} service may not call ${method.parent.typeName}/${method.name}; its callers are ${allowed.length > 0 ? allowed.join(", ") : "none (people only)"}`,
    { caller: service, callers: [...allowed] }
  );
}
function createServicePrincipalInterceptor(service) {
  const policyOf2 = createPolicyLookup();
  return (next) => async (req) => {
    const { callers } = policyOf2(req.method);
    if (!callers.includes(service)) throw callerNotAllowed(service, req.method, callers);
    req.contextValues.set(principalKey, servicePrincipal(service));
    return next(req);
  };
}

// lib/src/auth/auth-interceptor.ts
function createAuthInterceptor(opts) {
  const { settings, verifier, hasMembership } = opts;
  const delegatedScopes = opts.delegatedScopes ?? createDelegatedScopeGuard();
  const policyOf2 = createPolicyLookup();
  return (next) => async (req) => {
    if (settings.provider === "local") {
      if (req.header.has("authorization")) {
        throw svcError(
          Code.Unauthenticated,
          "invalid_token",
          "bearer tokens are not accepted: the platform runs with SVC_AUTH_PROVIDER=local, which trusts every caller; drop the Authorization header (x-svc-local-user picks a local user)"
        );
      }
      req.contextValues.set(principalKey, localPrincipal(req.header));
      return next(req);
    }
    const policy = policyOf2(req.method);
    if (policy.mode === AuthMode.PUBLIC) {
      const token2 = optionalBearer(req.header.get("authorization"));
      if (token2)
        req.contextValues.set(
          principalKey,
          await verifier.verify(token2, "user").catch((err) => {
            req.contextValues.set(bearerRejectionKey, err);
            return void 0;
          })
        );
      return next(req);
    }
    const token = bearerOf(req.header.get("authorization"));
    if (token === void 0) throw missingBearer();
    if (settings.serviceAudience && audiencesOf(token).includes(settings.serviceAudience)) {
      const verified2 = await verifier.verify(token, "service");
      const caller = serviceOfClient(verified2.sub) ?? verified2.sub;
      if (!policy.callers.includes(caller))
        throw callerNotAllowed(caller, req.method, policy.callers);
      req.contextValues.set(principalKey, servicePrincipal(caller));
      return next(req);
    }
    const machineRoute = policy.mode === AuthMode.MACHINE;
    if (machineRoute && !settings.m2mEnabled) {
      throw svcError(
        Code.PermissionDenied,
        "m2m_disabled",
        "machine-to-machine tokens are not accepted: set SVC_AUTH_M2M_ENABLED=true"
      );
    }
    const verified = await verifier.verify(token, machineRoute ? "machine" : "user");
    let principal = verified;
    if (machineRoute && principal.actorType !== "machine") {
      throw svcError(
        Code.PermissionDenied,
        "machine_token_required",
        "this internal route takes a machine-to-machine token from the client_credentials grant, not a user token"
      );
    }
    if (!machineRoute && principal.actorType === "machine") {
      throw svcError(
        Code.PermissionDenied,
        "user_token_required",
        "this route acts for a person; a machine token cannot call it"
      );
    }
    delegatedScopes.observe(principal);
    let revoked = [];
    if (principal.actorType === "agent") {
      if (!settings.agentTokensEnabled)
        throw svcError(
          Code.PermissionDenied,
          "agent_tokens_disabled",
          "delegated agent tokens are not accepted: set SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED=true"
        );
      if (!policy.allowAgent)
        throw svcError(
          Code.PermissionDenied,
          "agent_not_allowed",
          `an agent acting for ${principal.onBehalfOfSub} may not call ${req.method.name}; a person must`
        );
      revoked = delegatedScopes.revoked(principal);
      if (revoked.length > 0)
        principal = { ...verified, scopes: verified.scopes.filter((s) => !revoked.includes(s)) };
    }
    const missing = policy.scopes.find((s) => !hasScope(principal, s));
    if (missing && revoked.includes(missing)) throw delegatedScopeRevoked(principal, missing);
    if (missing) {
      throw svcError(
        Code.PermissionDenied,
        "missing_scope",
        `the token lacks the scope ${missing}`,
        { scope: missing, required: [...policy.scopes] }
      );
    }
    if (policy.stepUp) {
      req.contextValues.set(refusedPrincipalKey, principal);
      assertSteppedUp(principal, settings);
    }
    const membershipChecked = hasMembership && principal.actorType !== "machine" && !(settings.enforce === "permissive" && policy.readOnly);
    const kind = membershipChecked ? callKindOf(req.method) : void 0;
    const verdict = !membershipChecked ? void 0 : hasMembership.forHalt && kind === "halt" ? await hasMembership.forHalt(principal) : {
      member: await (kind === "release" && hasMembership.fresh ? hasMembership.fresh(principal) : hasMembership(principal)),
      source: "verified"
    };
    if (verdict?.member && verdict.source !== "verified")
      req.contextValues.set(
        assumedMembershipKey,
        verdict.source === "cached" ? { source: "cached", ageMs: verdict.ageMs } : { source: "unverified_halt" }
      );
    if (verdict && !verdict.member) {
      throw svcError(
        Code.PermissionDenied,
        "membership_required",
        `${principal.sub} has no membership in this organization; an administrator must invite you`
      );
    }
    if (membershipChecked && hasMembership.fresh) {
      const fresh = hasMembership.fresh;
      req.contextValues.set(freshMembershipCheckKey, () => fresh(principal));
    }
    req.contextValues.set(principalKey, principal);
    return next(req);
  };
}
function audiencesOf(token) {
  try {
    const { aud } = decodeJwt(token);
    return aud === void 0 ? [] : Array.isArray(aud) ? aud : [aud];
  } catch {
    return [];
  }
}
function optionalBearer(header) {
  try {
    return bearerOf(header);
  } catch {
    return void 0;
  }
}

// lib/src/auth/oidc-discovery.ts
function providerEndpoints(issuer, timeoutMs) {
  let known;
  return () => {
    known ??= (async () => {
      const res = await fetch(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`, {
        signal: AbortSignal.timeout(timeoutMs)
      });
      if (!res.ok) throw new Error(`discovery answered ${res.status}`);
      const doc = await res.json();
      const authorizationEndpoint = doc.authorization_endpoint;
      const tokenEndpoint = doc.token_endpoint;
      if (typeof authorizationEndpoint !== "string" || typeof tokenEndpoint !== "string")
        throw new Error("discovery names no authorization_endpoint or token_endpoint");
      return { authorizationEndpoint, tokenEndpoint };
    })().catch((err) => {
      known = void 0;
      throw err;
    });
    return known;
  };
}

// lib/src/auth/service-tokens.ts
var sources = /* @__PURE__ */ new Map();
function serviceTokens(settings) {
  const key = `${settings.issuer}\0${settings.clientId}`;
  const known = sources.get(key);
  if (known) return known;
  const endpoints = providerEndpoints(settings.issuer, settings.timeoutMs);
  const held = /* @__PURE__ */ new Map();
  const asking = /* @__PURE__ */ new Map();
  const fetchToken = async (callee) => {
    const { tokenEndpoint } = await endpoints();
    const res = await fetch(tokenEndpoint, {
      method: "POST",
      signal: AbortSignal.timeout(settings.timeoutMs),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: settings.clientId,
        client_secret: settings.clientSecret,
        resource: serviceAudienceOf(callee)
      }).toString()
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok || typeof body.access_token !== "string")
      throw new Error(
        `the identity provider refused a token for calling the ${callee} service: ${String(body.error ?? res.status)}${body.error_description ? ` (${String(body.error_description)})` : ""}`
      );
    const lifetimeS = Number(body.expires_in) > 0 ? Number(body.expires_in) : 60;
    const marginS = Math.min(60, lifetimeS / 5);
    held.set(callee, {
      token: body.access_token,
      renewAt: Date.now() + (lifetimeS - marginS) * 1e3
    });
    return body.access_token;
  };
  const source = {
    tokenFor(callee) {
      const h = held.get(callee);
      if (h && Date.now() < h.renewAt) return Promise.resolve(h.token);
      let pending = asking.get(callee);
      if (!pending) {
        pending = fetchToken(callee).finally(() => asking.delete(callee));
        asking.set(callee, pending);
      }
      return pending;
    }
  };
  sources.set(key, source);
  return source;
}

// lib/src/auth/agent-broker.ts
var DELEGATION_PROFILE = "svc-agent-delegation";
var TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
var ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
var AgentBrokerError = class extends Error {
  constructor(code, message2) {
    super(message2);
    this.code = code;
  }
  code;
};
function createAgentBroker(settings) {
  const endpoints = providerEndpoints(settings.issuer, settings.timeoutMs);
  return {
    async delegate(subjectToken, actorToken, scopes) {
      let res;
      try {
        const { tokenEndpoint } = await endpoints();
        res = await fetch(tokenEndpoint, {
          method: "POST",
          signal: AbortSignal.timeout(settings.timeoutMs),
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: TOKEN_EXCHANGE_GRANT,
            client_id: settings.clientId,
            client_secret: settings.clientSecret,
            subject_token: subjectToken,
            subject_token_type: ACCESS_TOKEN_TYPE,
            subject_token_profile: DELEGATION_PROFILE,
            actor_token: actorToken,
            actor_token_type: ACCESS_TOKEN_TYPE,
            scope: scopes.join(" ")
          }).toString()
        });
      } catch (err) {
        throw new AgentBrokerError(
          "provider_unreachable",
          `the identity provider did not answer the token exchange: ${err.message}`
        );
      }
      const body = await res.json().catch(() => ({}));
      if (!res.ok || typeof body.access_token !== "string")
        throw new AgentBrokerError(
          typeof body.error === "string" ? body.error : "provider_unreachable",
          typeof body.error_description === "string" ? body.error_description : `the token endpoint answered ${res.status}`
        );
      const expiresIn = Number(body.expires_in);
      if (!(expiresIn > 0) || expiresIn > settings.ttlSeconds)
        throw new AgentBrokerError(
          "ttl_exceeded",
          `the provider minted a delegated token for ${String(body.expires_in)} s; SVC_AUTH_AGENT_DELEGATION_TTL_SECONDS allows ${settings.ttlSeconds}`
        );
      return {
        accessToken: body.access_token,
        expiresIn,
        scope: typeof body.scope === "string" ? body.scope : ""
      };
    }
  };
}

// lib/src/validate/validate-message.ts
function validateMessage(desc, message2, path = "") {
  const msg = message2;
  for (const field of desc.fields) {
    const fieldPath = path ? `${path}.${field.name}` : field.name;
    const value = field.oneof ? oneofValue(msg, field) : msg[field.localName];
    const rule = fieldRules(field);
    const set = field.oneof ? value !== void 0 : isFieldSet(message2, field);
    if (rule?.required && !set) {
      throw invalidField(fieldPath, `${fieldPath} is required${requiredHint(field)}`);
    }
    if (!set) continue;
    checkValue(field, value, rule, fieldPath);
  }
}
function oneofValue(msg, field) {
  const group = msg[field.oneof.localName];
  return group?.case === field.localName ? group.value : void 0;
}
function requiredHint(field) {
  if (field.fieldKind === "enum") return `: one of ${allowedEnumWireValues(field.enum).join(", ")}`;
  return "";
}
function checkValue(field, value, rule, path) {
  switch (field.fieldKind) {
    case "scalar":
      checkScalar(value, rule, path);
      return;
    case "enum":
      checkEnum(field.enum, value, path);
      return;
    case "message":
      checkMessage(field.message, value, path);
      return;
    case "list":
      value.forEach((item, i) => {
        const itemPath = `${path}[${i}]`;
        if (field.listKind === "message") checkMessage(field.message, item, itemPath);
        else if (field.listKind === "enum") checkEnum(field.enum, item, itemPath);
        else checkScalar(item, rule, itemPath);
      });
      return;
    case "map":
      for (const [key, item] of Object.entries(value)) {
        checkMapKey(key, path);
        const itemPath = `${path}.${key}`;
        if (field.mapKind === "message") checkMessage(field.message, item, itemPath);
        else if (field.mapKind === "enum") checkEnum(field.enum, item, itemPath);
        else checkScalar(item, void 0, itemPath);
      }
      return;
  }
}
function checkMessage(desc, value, path) {
  if (!isWellKnown(desc)) return validateMessage(desc, value, path);
  if (!isMessage(value)) return checkJsonText(value, path);
  if (JSON_SHAPED.has(desc.typeName)) return checkJsonText(jsonOf(desc, value, path), path);
  validateMessage(desc, value, path);
}
function jsonOf(desc, value, path) {
  try {
    return toJson(desc, value);
  } catch (err) {
    throw invalidField(path, `${path} is not a valid JSON value: ${err.message}`);
  }
}
var JSON_SHAPED = /* @__PURE__ */ new Set([
  "google.protobuf.Struct",
  "google.protobuf.Value",
  "google.protobuf.ListValue"
]);
function checkJsonText(value, path) {
  if (typeof value === "string") return checkNoNul(value, path);
  if (Array.isArray(value)) return value.forEach((item, i) => checkJsonText(item, `${path}[${i}]`));
  if (typeof value !== "object" || value === null) return;
  for (const [key, item] of Object.entries(value)) {
    checkMapKey(key, path);
    checkJsonText(item, `${path}.${key}`);
  }
}
function checkMapKey(key, path) {
  if (key.includes(NUL))
    throw invalidField(
      path,
      `a key of ${path} contains the NUL character (U+0000), which cannot be stored; remove it`
    );
}
var NUL = "\0";
function checkNoNul(value, path) {
  if (value.includes(NUL))
    throw invalidField(
      path,
      `${path} contains the NUL character (U+0000), which cannot be stored; remove it`
    );
}
function checkScalar(value, rule, path) {
  if (typeof value === "string") checkNoNul(value, path);
  if (!rule) return;
  if (typeof value === "string") {
    if (rule.maxLen > 0 && value.length > rule.maxLen) {
      throw invalidField(
        path,
        `${path} is ${value.length} characters long; at most ${rule.maxLen} are allowed`,
        { max_len: rule.maxLen }
      );
    }
    if (rule.pattern && !new RegExp(rule.pattern, "u").test(value)) {
      throw invalidField(
        path,
        `${path}=${JSON.stringify(truncate(value))} does not match ${rule.pattern}`,
        { pattern: rule.pattern }
      );
    }
    return;
  }
  if (typeof value === "number" || typeof value === "bigint") {
    const n = Number(value);
    if (!Number.isFinite(n)) throw invalidField(path, `${path} must be a finite number`);
    if (rule.min !== void 0 && n < rule.min)
      throw invalidField(path, `${path}=${n} is below the minimum ${rule.min}`, { min: rule.min });
    if (rule.max !== void 0 && n > rule.max)
      throw invalidField(path, `${path}=${n} is above the maximum ${rule.max}`, { max: rule.max });
  }
}
function checkEnum(enumDesc2, value, path) {
  if (!enumDesc2.values.some((v) => v.number === value)) {
    const allowed = allowedEnumWireValues(enumDesc2);
    throw invalidField(path, `${path} must be one of ${allowed.join(", ")}`, { allowed });
  }
}
var rulesOf = /* @__PURE__ */ new WeakMap();
var wireNamesOf = /* @__PURE__ */ new WeakMap();
var allowedOf = /* @__PURE__ */ new WeakMap();
function fieldRules(field) {
  if (!rulesOf.has(field)) rulesOf.set(field, getOption(field, rules));
  return rulesOf.get(field);
}
function allowedEnumWireValues(enumDesc2) {
  let allowed = allowedOf.get(enumDesc2);
  if (!allowed) {
    allowed = enumDesc2.values.filter((v) => v.number !== 0).map((v) => enumValueWireName(enumDesc2, v.name));
    allowedOf.set(enumDesc2, allowed);
  }
  return [...allowed];
}
function enumValueWireName(enumDesc2, protoName) {
  let names = wireNamesOf.get(enumDesc2);
  if (!names) {
    const upper = getOption(enumDesc2, wire_upper_case) === true;
    names = new Map(
      enumDesc2.values.map((v) => [v.name, upper ? v.localName : v.localName.toLowerCase()])
    );
    wireNamesOf.set(enumDesc2, names);
  }
  const known = names.get(protoName);
  if (known !== void 0) return known;
  return getOption(enumDesc2, wire_upper_case) === true ? protoName : protoName.toLowerCase();
}
function isWellKnown(desc) {
  return desc.file.proto.package === "google.protobuf";
}
function truncate(s) {
  return s.length > 64 ? `${s.slice(0, 61)}...` : s;
}

// lib/src/validate/validation-interceptor.ts
function createValidationInterceptor() {
  return (next) => async (req) => {
    if (!req.stream) validateMessage(req.method.input, req.message);
    else if (req.method.methodKind === "server_streaming") {
      const source = req.message;
      const input = req.method.input;
      return next({
        ...req,
        message: (async function* () {
          for await (const m of source) {
            validateMessage(input, m);
            yield m;
          }
        })()
      });
    }
    return next(req);
  };
}

// lib/src/audit/record-audit.ts
import { randomUUID as randomUUID2 } from "node:crypto";
import { trace as trace3 } from "@opentelemetry/api";
var AUDIT_SUBJECT = getOption(AuditRecordedSchema, event_subject);
function auditActorOf(p, system = "system") {
  if (!p)
    return {
      subject: system,
      actor_type: "system",
      internal_user_id: "",
      agent_subject: "",
      on_behalf_of: ""
    };
  return {
    subject: p.sub,
    actor_type: p.actorType,
    internal_user_id: p.internalUserId ?? "",
    agent_subject: p.agentSubject ?? "",
    on_behalf_of: p.onBehalfOfSub ?? ""
  };
}
function currentTraceId() {
  return trace3.getActiveSpan()?.spanContext().traceId ?? "";
}
function auditOriginOf(ctx) {
  return { principal: ctx.values.get(principalKey), requestId: ctx.values.get(requestIdKey) };
}
async function recordAudit(trx, schema, service, origin, entry) {
  return enqueueEvent(trx, schema, {
    subject: AUDIT_SUBJECT,
    type: AuditRecordedSchema.typeName,
    payload: toBinary(AuditRecordedSchema, auditEvent(service, origin, entry))
  });
}
async function publishAudit(bus, service, origin, entry) {
  await bus.publish(
    AUDIT_SUBJECT,
    toBinary(AuditRecordedSchema, auditEvent(service, origin, entry)),
    {
      msgId: randomUUID2(),
      headers: { "svc-event-type": AuditRecordedSchema.typeName }
    }
  );
}
function auditEvent(service, origin, entry) {
  const actor = auditActorOf(origin.principal, origin.system);
  return create(AuditRecordedSchema, {
    service,
    action: entry.action,
    outcome: entry.outcome,
    resource: entry.resource,
    actor: {
      subject: actor.subject,
      actorType: actor.actor_type,
      internalUserId: actor.internal_user_id,
      agentSubject: actor.agent_subject,
      onBehalfOf: actor.on_behalf_of
    },
    requestId: origin.requestId ?? "",
    traceId: currentTraceId(),
    occurredAt: timestampFromDate(/* @__PURE__ */ new Date()),
    details: entry.details ?? {}
  });
}

// lib/src/audit/refusal-audit-interceptor.ts
function createRefusalAuditInterceptor(bus, log) {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      if (err instanceof ConnectError && errorDetailOf(err).code === "insufficient_user_authentication") {
        const principal = req.contextValues.get(refusedPrincipalKey);
        const rpc = `${req.service.typeName}/${req.method.name}`;
        publishAudit(
          bus,
          req.service.typeName.split(".")[1] ?? req.service.typeName,
          { principal, requestId: req.contextValues.get(requestIdKey) },
          {
            action: "auth.step_up",
            outcome: "denied",
            resource: `rpc/${rpc}`,
            details: {
              reason: err.rawMessage,
              acr: principal?.acr ?? "",
              amr: principal?.amr ?? [],
              ...principal?.authTime !== void 0 ? { auth_time: principal.authTime } : {}
            }
          }
        ).catch(
          (e) => log.warn({ err: e, rpc }, "a refused step-up could not be recorded in the audit trail")
        );
      }
      throw err;
    }
  };
}

// lib/src/audit/membership-audit-interceptor.ts
function createMembershipAuditInterceptor(bus, log) {
  return (next) => async (req) => {
    let outcome = "failed";
    try {
      const res = await next(req);
      outcome = "succeeded";
      return res;
    } finally {
      const assumed = req.contextValues.get(assumedMembershipKey);
      if (assumed) {
        const rpc = `${req.service.typeName}/${req.method.name}`;
        publishAudit(
          bus,
          req.service.typeName.split(".")[1] ?? req.service.typeName,
          {
            principal: req.contextValues.get(principalKey),
            requestId: req.contextValues.get(requestIdKey)
          },
          {
            action: "auth.membership_assumed",
            outcome,
            resource: `rpc/${rpc}`,
            details: {
              membership_source: assumed.source,
              ...assumed.source === "cached" ? { membership_age_ms: assumed.ageMs } : {},
              reason: assumed.source === "cached" ? "the identity service did not answer; the caller's last known membership was used for a halt" : "the identity service did not answer and no membership of the caller was known; a holder of the halt scope may halt, halting being the safe direction"
            }
          }
        ).catch(
          (e) => log.warn({ err: e, rpc }, "a halt on an assumed membership could not be recorded")
        );
      }
    }
  };
}

// lib/src/audit/chain.ts
import { createHash } from "node:crypto";

// lib/src/license/canonical.ts
var import_canonicalize = __toESM(require_canonicalize(), 1);
var canonicalize = import_canonicalize.default;
function canonicalBytes(value) {
  const text = canonicalize(value);
  if (text === void 0) throw new TypeError("the value has no JSON form");
  return new TextEncoder().encode(text);
}

// lib/src/audit/chain.ts
var GENESIS_HASH = "0".repeat(64);
function auditHash(fields) {
  return createHash("sha256").update(canonicalBytes(fields)).digest("hex");
}
function firstBrokenLink(rows, previous = { hash: GENESIS_HASH, seq: 0 }) {
  let prev = previous;
  for (const row of rows) {
    if (row.seq !== prev.seq + 1)
      return {
        seq: row.seq,
        id: row.id,
        problem: "rows_missing",
        why: `expected seq ${prev.seq + 1} next, found ${row.seq}: rows are missing`
      };
    if (row.prev_hash !== prev.hash)
      return {
        seq: row.seq,
        id: row.id,
        problem: "prev_hash_mismatch",
        why: `prev_hash ${row.prev_hash} is not the hash of row ${prev.seq} (${prev.hash})`
      };
    const { seq: _seq, hash, ...fields } = row;
    const recomputed = auditHash(fields);
    if (recomputed !== hash)
      return {
        seq: row.seq,
        id: row.id,
        problem: "altered",
        why: `the row's content does not hash to its hash (${hash}; recomputed ${recomputed}): it was altered`
      };
    prev = { hash, seq: row.seq };
  }
  return void 0;
}

// node_modules/@noble/ed25519/index.js
var freeze = Object.freeze;
var P = 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffedn;
var N = 0x1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3edn;
var _d = 0x52036cee2b6ffe738cc740797779e89800700a4d4141d8ab75eb4dca135978a3n;
var Gx = 0x216936d3cd6e53fec0a4e231fdd6dc5c692cc7609525a7b2c9562d608f25d51an;
var Gy = 0x6666666666666666666666666666666666666666666666666666666666666658n;
var _a = P - 1n;
var ed25519_CURVE = freeze({
  p: P,
  n: N,
  h: 8n,
  a: _a,
  d: _d,
  Gx,
  Gy
});
var LEN = 32;
var isBytes = (a) => {
  return a instanceof Uint8Array || ArrayBuffer.isView(a) && a.constructor.name === "Uint8Array" && a.BYTES_PER_ELEMENT === 1;
};
var abytes = (value, length, title = "") => {
  if (isBytes(value) && (length === void 0 || value.length === length))
    return value;
  const bytes = isBytes(value);
  const ofLen = length !== void 0 ? ` of length ${length}` : "";
  const got = bytes ? `length=${value.length}` : `type=${typeof value}`;
  const message2 = (title ? `"${title}" ` : "") + "expected Uint8Array" + ofLen + ", got " + got;
  if (!bytes)
    throw new TypeError(message2);
  throw new RangeError(message2);
};
var snapshotBytes = (value, title = "", length) => Uint8Array.from(abytes(value, length, title));
var padh = (n, pad) => n.toString(16).padStart(pad, "0");
var bytesToHex = (bytes) => {
  let hex = "";
  for (const byte of abytes(bytes))
    hex += padh(byte, 2);
  return hex;
};
var hexToBytes = (hex) => {
  const e = "hex invalid";
  if (typeof hex !== "string")
    throw new TypeError(e);
  if (hex.length % 2 || !/^[\da-f]*$/i.test(hex))
    throw new RangeError(e);
  const array = new Uint8Array(hex.length / 2);
  for (let ai = 0, hi = 0; ai < array.length; ai++, hi += 2) {
    const n1 = hex.charCodeAt(hi);
    const n2 = hex.charCodeAt(hi + 1);
    array[ai] = ((n1 & 15) + (n1 >> 6) * 9) * 16 + (n2 & 15) + (n2 >> 6) * 9;
  }
  return array;
};
var concatBytes = (...arrays) => {
  let sum = 0;
  for (const a of arrays)
    sum += abytes(a).length;
  const res = new Uint8Array(sum);
  let pad = 0;
  for (const a of arrays) {
    res.set(a, pad);
    pad += a.length;
  }
  return res;
};
var arange = (n, min, max, msg = "bad number: out of range") => {
  if (typeof n !== "bigint")
    throw new TypeError(msg);
  if (min <= n && n < max)
    return n;
  throw new RangeError(msg);
};
var mod = (a, b = P) => (a %= b) >= 0n ? a : b + a;
var P_MASK = (1n << 255n) - 1n;
var modP = (num) => {
  if (num < 0n)
    throw new RangeError("negative coordinate");
  let r = (num >> 255n) * 19n + (num & P_MASK);
  r = (r >> 255n) * 19n + (r & P_MASK);
  return r % P;
};
var modN = (a) => mod(a, N);
var invert = (number, modulo) => {
  if (number === 0n)
    throw new Error("invert: expected non-zero number");
  if (modulo <= 1n)
    throw new Error("invert: expected modulus > 1, got " + modulo);
  let a = mod(number, modulo);
  let b = modulo;
  let x = 0n, u = 1n;
  while (a !== 0n) {
    const q = b / a;
    const r = b - a * q;
    const m = x - u * q;
    b = a, a = r, x = u, u = m;
  }
  const gcd = b;
  if (gcd !== 1n)
    throw new Error("invert: does not exist");
  return mod(x, modulo);
};
var _hash = (name) => {
  const fn = hashes[name];
  if (typeof fn !== "function")
    throw new Error("hashes." + name + " not set");
  return fn;
};
var callHashAsync = async (name, ...m) => abytes(await _hash(name)(concatBytes(...m)), 64, "digest");
var apoint = (p) => {
  if (p instanceof Point)
    return p;
  throw new TypeError("Point expected");
};
var B256 = 2n ** 256n;
var Point = class _Point {
  static BASE;
  static ZERO;
  X;
  Y;
  Z;
  T;
  // Constructor only bounds-checks and freezes XYZT coordinates; it does not prove the point is
  // on-curve or that T matches X*Y/Z.
  constructor(X, Y, Z, T) {
    const max = B256;
    this.X = arange(X, 0n, max);
    this.Y = arange(Y, 0n, max);
    this.Z = arange(Z, 1n, max);
    this.T = arange(T, 0n, max);
    freeze(this);
  }
  static CURVE() {
    return ed25519_CURVE;
  }
  static fromAffine(p) {
    return new _Point(p.x, p.y, 1n, modP(p.x * p.y));
  }
  /** RFC8032 5.1.3: Uint8Array to Point. */
  static fromBytes(bytes, zip215 = false) {
    const normed = snapshotBytes(bytes, "point", LEN);
    const lastByte = normed[31];
    normed[31] = lastByte & ~128;
    const y = bytesToNumberLE(normed);
    if (!zip215)
      arange(y, 0n, P);
    const y2 = modP(y * y);
    const u = mod(y2 - 1n);
    const v = modP(_d * y2 + 1n);
    let { isValid, value: x } = uvRatio(u, v);
    if (!isValid)
      throw new Error("bad point: y not sqrt");
    const isLastByteOdd = !!(lastByte & 128);
    if (!zip215 && x === 0n && isLastByteOdd)
      throw new Error("bad point: x==0, isLastByteOdd");
    if (isLastByteOdd !== !!(x & 1n))
      x = mod(-x);
    return new _Point(x, y, 1n, modP(x * y));
  }
  static fromHex(hex, zip215) {
    return _Point.fromBytes(hexToBytes(hex), zip215);
  }
  get x() {
    return this.toAffine().x;
  }
  get y() {
    return this.toAffine().y;
  }
  /** Checks if the point is valid and on-curve. */
  assertValidity() {
    const a = _a;
    const d = _d;
    const p = this;
    if (p.is0())
      throw new Error("bad point: ZERO");
    const { X, Y, Z, T } = p;
    const X2 = modP(X * X);
    const Y2 = modP(Y * Y);
    const Z2 = modP(Z * Z);
    const Z4 = modP(Z2 * Z2);
    const aX2 = modP(X2 * a);
    const left = modP(Z2 * (aX2 + Y2));
    const right = mod(Z4 + modP(d * modP(X2 * Y2)));
    if (left !== right)
      throw new Error("bad point: equation left != right (1)");
    const XY = modP(X * Y);
    const ZT = modP(Z * T);
    if (XY !== ZT)
      throw new Error("bad point: equation left != right (2)");
    return this;
  }
  /** Equality check: compare points P&Q. */
  equals(other) {
    const { X: X1, Y: Y1, Z: Z1 } = this;
    const { X: X2, Y: Y2, Z: Z2 } = apoint(other);
    return modP(X1 * Z2) === modP(X2 * Z1) && modP(Y1 * Z2) === modP(Y2 * Z1);
  }
  is0() {
    return this.equals(I);
  }
  /** Flip point over y coordinate. */
  negate() {
    return new _Point(mod(-this.X), this.Y, this.Z, mod(-this.T));
  }
  /** Point doubling. Complete formula. Cost: `4M + 4S + 1*a + 6add + 1*2`. */
  double() {
    const { X: X1, Y: Y1, Z: Z1 } = this;
    const a = _a;
    const A = modP(X1 * X1);
    const B = modP(Y1 * Y1);
    const C = modP(2n * Z1 * Z1);
    const D = modP(a * A);
    const x1y1 = mod(X1 + Y1);
    const E = mod(modP(x1y1 * x1y1) - A - B);
    const G2 = mod(D + B);
    const F = mod(G2 - C);
    const H = mod(D - B);
    const X3 = modP(E * F);
    const Y3 = modP(G2 * H);
    const T3 = modP(E * H);
    const Z3 = modP(F * G2);
    return new _Point(X3, Y3, Z3, T3);
  }
  /** Point addition. Complete formula. Cost: `9M + 1*a + 1*d + 7add`. */
  add(other) {
    const { X: X1, Y: Y1, Z: Z1, T: T1 } = this;
    const { X: X2, Y: Y2, Z: Z2, T: T2 } = apoint(other);
    const a = _a;
    const d = _d;
    const A = modP(X1 * X2);
    const B = modP(Y1 * Y2);
    const C = modP(modP(T1 * d) * T2);
    const D = modP(Z1 * Z2);
    const E = mod(modP(mod(X1 + Y1) * mod(X2 + Y2)) - A - B);
    const F = mod(D - C);
    const G2 = mod(D + C);
    const H = mod(B - modP(a * A));
    const X3 = modP(E * F);
    const Y3 = modP(G2 * H);
    const T3 = modP(E * H);
    const Z3 = modP(F * G2);
    return new _Point(X3, Y3, Z3, T3);
  }
  subtract(other) {
    return this.add(apoint(other).negate());
  }
  /**
   * Point-by-scalar multiplication. Safe mode requires `1 <= n < CURVE.n`.
   * Unsafe mode additionally permits `n = 0` and returns the identity point for that case.
   * Uses {@link wNAF} for base point.
   * Uses fake point to mitigate side-channel leakage.
   * @param n - scalar by which point is multiplied
   * @param safe - safe mode guards against timing attacks; unsafe mode is faster
   */
  multiply(n, safe = true) {
    if (!safe && n === 0n)
      return I;
    arange(n, 1n, N);
    if (!safe && this.is0())
      return I;
    if (n === 1n)
      return this;
    if (this.equals(G))
      return wNAF(n).p;
    let p = I;
    let f = G;
    let d = this;
    for (let i = 0; safe ? i < 256 : n > 0n; i++) {
      if (n & 1n)
        p = p.add(d);
      else if (safe)
        f = f.add(d);
      d = d.double();
      n >>= 1n;
    }
    return p;
  }
  multiplyUnsafe(scalar) {
    return this.multiply(scalar, false);
  }
  /** Convert point to 2d xy affine point. (X, Y, Z) ∋ (x=X/Z, y=Y/Z) */
  toAffine() {
    const { X, Y, Z } = this;
    if (this.equals(I))
      return { x: 0n, y: 1n };
    const iz = invert(Z, P);
    if (modP(Z * iz) !== 1n)
      throw new Error("invalid inverse");
    return { x: modP(X * iz), y: modP(Y * iz) };
  }
  toBytes() {
    const { x, y } = this.toAffine();
    const b = numTo32bLE(y);
    b[31] |= x & 1n ? 128 : 0;
    return b;
  }
  toHex() {
    return bytesToHex(this.toBytes());
  }
  clearCofactor() {
    return this.multiply(8n, false);
  }
  isSmallOrder() {
    return this.clearCofactor().is0();
  }
  isTorsionFree() {
    return this.multiply(N / 2n, false).double().add(this).is0();
  }
};
var G = new Point(Gx, Gy, 1n, mod(Gx * Gy));
var I = new Point(0n, 1n, 1n, 0n);
Point.BASE = G;
Point.ZERO = I;
var numTo32bLE = (num) => hexToBytes(padh(arange(num, 0n, B256), 64)).reverse();
var bytesToNumberLE = (b) => BigInt("0x" + bytesToHex(Uint8Array.from(abytes(b)).reverse()));
var pow2 = (x, power) => {
  let r = x;
  while (power-- > 0) {
    r = modP(r * r);
  }
  return r;
};
var pow_2_252_3 = (x) => {
  const x2 = modP(x * x);
  const b2 = modP(x2 * x);
  const b4 = modP(pow2(b2, 2) * b2);
  const b5 = modP(pow2(b4, 1) * x);
  const b10 = modP(pow2(b5, 5) * b5);
  const b20 = modP(pow2(b10, 10) * b10);
  const b40 = modP(pow2(b20, 20) * b20);
  const b80 = modP(pow2(b40, 40) * b40);
  const b160 = modP(pow2(b80, 80) * b80);
  const b240 = modP(pow2(b160, 80) * b80);
  const b250 = modP(pow2(b240, 10) * b10);
  return modP(pow2(b250, 2) * x);
};
var RM1 = 0x2b8324804fc1df0b2b4d00993dfbd7a72f431806ad2fe478c4ee1b274a0ea0b0n;
var uvRatio = (u, v) => {
  const v3 = modP(v * modP(v * v));
  const v7 = modP(modP(v3 * v3) * v);
  const pow = pow_2_252_3(modP(u * v7));
  let x = modP(u * modP(v3 * pow));
  const vx2 = modP(v * modP(x * x));
  const root1 = x;
  const root2 = modP(x * RM1);
  const useRoot1 = vx2 === u;
  const useRoot2 = vx2 === mod(-u);
  const noRoot = vx2 === mod(-u * RM1);
  if (useRoot1)
    x = root1;
  if (useRoot2 || noRoot)
    x = root2;
  if ((mod(x) & 1n) === 1n)
    x = mod(-x);
  return { isValid: useRoot1 || useRoot2, value: x };
};
var modL_LE = (hash) => modN(bytesToNumberLE(hash));
var hashedToExtK = (hashed) => {
  const copy = snapshotBytes(hashed);
  const head = copy.slice(0, 32);
  head[0] &= 248;
  head[31] &= 127;
  head[31] |= 64;
  const prefix = copy.slice(32);
  const scalar = modL_LE(head);
  const point = G.multiply(scalar);
  const pointBytes = point.toBytes();
  return { head, prefix, scalar, point, pointBytes };
};
var getExtendedPublicKeyAsync = (secretKey) => callHashAsync("sha512Async", abytes(secretKey, LEN, "secretKey")).then(hashedToExtK);
var hashFinishAsync = async (res) => res[1](await callHashAsync("sha512Async", res[0]));
var _sign = (e, rBytes, msg) => {
  const { pointBytes: A, scalar: s } = e;
  const r = modL_LE(rBytes);
  const R = G.multiply(r).toBytes();
  const hashable = concatBytes(R, A, msg);
  const finish = (hashed) => {
    const S = modN(r + modL_LE(hashed) * s);
    return abytes(concatBytes(R, numTo32bLE(S)), 64);
  };
  return [hashable, finish];
};
var signAsync = async (message2, secretKey) => {
  const m = snapshotBytes(message2, "message");
  const e = await getExtendedPublicKeyAsync(secretKey);
  return hashFinishAsync(_sign(e, await callHashAsync("sha512Async", e.prefix, m), m));
};
var getZip215 = (options) => {
  if (options === null || typeof options !== "object")
    throw new TypeError("expected valid options object");
  return options.zip215 ?? true;
};
var _verify = (sig2, msg, publicKey, options) => {
  sig2 = abytes(sig2, 64, "signature");
  msg = abytes(msg, void 0, "message");
  publicKey = abytes(publicKey, LEN, "publicKey");
  const zip215 = getZip215(options);
  const r = sig2.subarray(0, LEN);
  const s = bytesToNumberLE(sig2.subarray(LEN, 64));
  let A, R, SB;
  let hashable = Uint8Array.of();
  let finished = false;
  try {
    A = Point.fromBytes(publicKey, zip215);
    R = Point.fromBytes(r, zip215);
    SB = G.multiply(s, false);
    hashable = concatBytes(r, publicKey, msg);
    finished = true;
  } catch (error2) {
  }
  const finish = (hashed) => {
    if (!finished)
      return false;
    if (!zip215 && A.isSmallOrder())
      return false;
    const k = modL_LE(hashed);
    const RkA = R.add(A.multiply(k, false));
    return RkA.subtract(SB).clearCofactor().is0();
  };
  return [hashable, finish];
};
var verifyAsync = async (signature, message2, publicKey, opts = {}) => hashFinishAsync(_verify(signature, message2, publicKey, opts));
var hashes = {
  sha512Async: async (message2) => {
    const s = globalThis?.crypto?.subtle;
    if (!s)
      throw new Error("crypto.subtle must be defined, consider polyfill");
    return new Uint8Array(await s.digest("SHA-512", concatBytes(message2)));
  },
  sha512: void 0
};
var precompute = () => {
  const points = [];
  let p = G;
  let b;
  for (let w = 0; w < 33; w++) {
    b = p;
    points.push(b);
    for (let i = 1; i < 128; i++) {
      b = b.add(p);
      points.push(b);
    }
    p = b.double();
  }
  return points;
};
var Gpows = void 0;
var ctneg = (cnd, p) => {
  const n = p.negate();
  return cnd ? n : p;
};
var wNAF = (n) => {
  const comp = Gpows || (Gpows = precompute());
  let p = I;
  let f = G;
  for (let w = 0; w < 33; w++) {
    let wbits = Number(n & 255n);
    n >>= 8n;
    if (wbits > 128) {
      wbits -= 256;
      n += 1n;
    }
    const off = w * 128;
    const offP = off + Math.abs(wbits) - 1;
    const isOddW = w % 2 !== 0;
    const isNeg = wbits < 0;
    if (wbits === 0) {
      f = f.add(ctneg(isOddW, comp[off]));
    } else {
      p = p.add(ctneg(isNeg, comp[offP]));
    }
  }
  if (n !== 0n)
    throw new Error("invalid wnaf");
  return { p, f };
};

// lib/src/license/encoding.ts
function toBase64Url(bytes) {
  return Buffer.from(bytes).toString("base64url");
}
function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return void 0;
  return new Uint8Array(Buffer.from(text, "base64url"));
}

// lib/src/audit/checkpoint.ts
var CHECKPOINT_FORMAT = "svc-audit-checkpoint/1";
async function signCheckpoint(head, key) {
  const payload = {
    format: CHECKPOINT_FORMAT,
    seq: head.seq,
    head_hash: head.head_hash,
    time: head.time,
    key_id: key.publicKeyId
  };
  return {
    payload,
    signature: toBase64Url(await signAsync(canonicalBytes(payload), key.secretKey))
  };
}
async function checkpointRefusal(c, trusted) {
  const key = trusted.find((k) => k.publicKeyId === c.payload.key_id);
  if (!key) return "unknown_key";
  const signature = fromBase64Url(c.signature);
  if (!signature || signature.length !== 64 || c.payload.format !== CHECKPOINT_FORMAT)
    return "bad_signature";
  const ok = await verifyAsync(signature, canonicalBytes(c.payload), key.publicKey, {
    zip215: false
  }).catch(() => false);
  return ok ? void 0 : "bad_signature";
}

// lib/src/audit/verify-trail.ts
async function verifyTrail(rows, around, trusted) {
  const identity = (c) => JSON.stringify([c.payload, c.signature]);
  const seen = /* @__PURE__ */ new Set();
  const checkpoints = [...around.before, ...around.after].filter(
    (c) => !seen.has(identity(c)) && seen.add(identity(c))
  );
  const signedBeforeRead = new Set(around.before.map(identity));
  const head = rows.at(-1);
  const headSeq = head?.seq ?? 0;
  const bySeq = new Map(rows.map((r) => [r.seq, r]));
  const found = [];
  const chainBreak = firstBrokenLink(rows);
  if (chainBreak) found.push(chainBreak);
  const authentic = [];
  let untrusted = 0;
  for (const c of checkpoints) {
    const refusal = await checkpointRefusal(c, trusted);
    if (refusal === "unknown_key") untrusted++;
    else if (refusal === "bad_signature")
      found.push({
        seq: Math.max(1, Number(c.payload.seq) || 1),
        id: bySeq.get(c.payload.seq)?.id ?? "",
        problem: "bad_checkpoint_signature",
        why: `the checkpoint for seq ${c.payload.seq} signed at ${c.payload.time} claims key ${c.payload.key_id} but its signature does not verify: it was forged or altered`
      });
    else authentic.push(c);
  }
  authentic.sort((a, b) => a.payload.seq - b.payload.seq);
  const holds = (c) => c.payload.seq === 0 ? c.payload.head_hash === GENESIS_HASH : bySeq.get(c.payload.seq)?.hash === c.payload.head_hash;
  for (const c of authentic) {
    const { seq, head_hash: hash, time } = c.payload;
    if (seq > headSeq) {
      if (!signedBeforeRead.has(identity(c))) continue;
      found.push({
        seq: headSeq + 1,
        id: "",
        problem: "truncated",
        why: `the checkpoint signed at ${time} vouches for seq ${seq} (hash ${hash}), but the trail ends at seq ${headSeq}: rows ${headSeq + 1} to ${seq} were removed`
      });
      continue;
    }
    if (holds(c)) continue;
    const row = bySeq.get(seq);
    if (!row) {
      found.push({
        seq,
        id: "",
        problem: "rows_missing",
        why: `the checkpoint signed at ${time} vouches for seq ${seq}, which the trail no longer has`
      });
      continue;
    }
    const lastGood = authentic.filter((b) => b.payload.seq < seq && b.payload.seq <= headSeq && holds(b)).at(-1);
    const from = (lastGood?.payload.seq ?? 0) + 1;
    found.push({
      seq: from,
      id: bySeq.get(from)?.id ?? "",
      problem: "rewritten",
      why: from === seq ? `row ${seq} hashes to ${row.hash}, but the checkpoint signed at ${time} vouches for ${hash}: it was rewritten and the chain recomputed` : `row ${seq} hashes to ${row.hash}, but the checkpoint signed at ${time} vouches for ${hash}: the chain was rewritten and recomputed from seq ${from} at the earliest (the last checkpoint that holds is seq ${from - 1})`
    });
  }
  const anchoredSeq = authentic.at(-1)?.payload.seq ?? 0;
  if (headSeq > anchoredSeq) {
    const first = anchoredSeq + 1;
    found.push({
      seq: first,
      id: bySeq.get(first)?.id ?? "",
      problem: "unanchored",
      why: authentic.length === 0 ? `no trusted signed checkpoint vouches for any row (rows 1 to ${headSeq})` : `no signed checkpoint vouches for rows ${first} to ${headSeq}: the identity service did not append them (a forged row), or their checkpoint never reached the checkpoint stream`
    });
  }
  found.sort((a, b) => a.seq - b.seq);
  return {
    rows: rows.length,
    headSeq,
    headHash: head?.hash ?? GENESIS_HASH,
    anchoredSeq,
    checkpoints: authentic.length,
    untrustedCheckpoints: untrusted,
    broken: found[0]
  };
}

// lib/src/audit/index.ts
async function openNatsCheckpointLog(...args) {
  return (await import("./nats-checkpoint-log-MBSXKOQA.js")).openNatsCheckpointLog(...args);
}

// lib/src/license/public-keys.ts
import { createHash as createHash2, createPublicKey } from "node:crypto";
function publicKeyIdOf(publicKey) {
  const jwk = `{"crv":"Ed25519","kty":"OKP","x":"${toBase64Url(publicKey)}"}`;
  return createHash2("sha256").update(jwk).digest("base64url");
}
function leasePublicKey(publicKey) {
  const key = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: toBase64Url(publicKey) },
    format: "jwk"
  });
  return {
    publicKeyId: publicKeyIdOf(publicKey),
    publicKey,
    publicKeyPem: key.export({ type: "spki", format: "pem" }).toString()
  };
}
function publicKeysFromPem(text) {
  const blocks = text.match(/-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g) ?? [];
  if (blocks.length === 0 && text.trim() !== "")
    throw new TypeError("no -----BEGIN PUBLIC KEY----- block found");
  return blocks.map((block, i) => {
    const jwk = createPublicKey(block).export({ format: "jwk" });
    if (jwk.crv !== "Ed25519" || !jwk.x)
      throw new TypeError(`public key ${i + 1} is not an Ed25519 key`);
    return leasePublicKey(fromBase64Url(jwk.x));
  });
}

// lib/src/license/lease-document.ts
var LEASE_FORMAT = "svc-license-lease/v1";
var LeaseFormatError = class extends Error {
  code = "lease_malformed";
  constructor(message2) {
    super(message2);
    this.name = "LeaseFormatError";
  }
};
var RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
function leaseTime(ms) {
  return new Date(Math.floor(ms / 1e3) * 1e3).toISOString().replace(".000Z", "Z");
}
function parseLease(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new LeaseFormatError(`the lease is not JSON: ${err.message}`);
  }
  if (!isObject2(doc) || !isObject2(doc.payload) || typeof doc.signature !== "string")
    throw new LeaseFormatError('a lease is {"payload": {...}, "signature": "..."}');
  const p = doc.payload;
  if (p.format !== LEASE_FORMAT)
    throw new LeaseFormatError(`unknown lease format ${JSON.stringify(p.format)}`);
  for (const f of ["lease_id", "deployment_id", "public_key_id"])
    if (typeof p[f] !== "string" || p[f] === "") throw new LeaseFormatError(`${f} is missing`);
  for (const f of ["issued_at", "expires_at"])
    if (typeof p[f] !== "string" || !RFC3339.test(p[f]))
      throw new LeaseFormatError(`${f} must be an RFC 3339 UTC time`);
  for (const f of ["serial", "ttl_seconds", "grace_period_seconds"])
    if (!Number.isSafeInteger(p[f]) || p[f] < 0)
      throw new LeaseFormatError(`${f} must be a whole number`);
  if (!isObject2(p.entitlements)) throw new LeaseFormatError("entitlements must be an object");
  if (p.customer_id !== void 0 && typeof p.customer_id !== "string")
    throw new LeaseFormatError("customer_id must be a string");
  return { payload: p, signature: doc.signature };
}
function isObject2(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// lib/src/license/verify-lease.ts
async function verifyLeaseSignature(lease, trusted) {
  const key = trusted.find((k) => k.publicKeyId === lease.payload.public_key_id);
  if (!key) return "unknown_key";
  const signature = fromBase64Url(lease.signature);
  if (!signature || signature.length !== 64) return "bad_signature";
  const ok = await verifyAsync(signature, canonicalBytes(lease.payload), key.publicKey, {
    zip215: false
  }).catch(() => false);
  return ok ? void 0 : "bad_signature";
}

// lib/src/license/lease-state.ts
function leaseStateAt(opts) {
  const graceEndsMs = opts.expiresAtMs + opts.graceSeconds * 1e3;
  if (opts.nowMs < opts.expiresAtMs)
    return { state: "valid", secondsLeft: Math.floor((opts.expiresAtMs - opts.nowMs) / 1e3) };
  if (opts.nowMs < graceEndsMs)
    return { state: "grace", secondsLeft: Math.floor((graceEndsMs - opts.nowMs) / 1e3) };
  return { state: "expired", secondsLeft: 0 };
}

// lib/src/license/check-lease.ts
var ISSUE_SKEW_MS = 3e5;
async function checkLease(text, ctx) {
  if (text === void 0)
    return {
      ok: false,
      refusal: "no_lease",
      message: "no lease file yet: install one (svc-license-daemon install <file>)"
    };
  let lease;
  try {
    lease = parseLease(text);
  } catch (err) {
    if (err instanceof LeaseFormatError)
      return { ok: false, refusal: "malformed", message: err.message };
    throw err;
  }
  const p = lease.payload;
  if (p.deployment_id !== ctx.deploymentId)
    return {
      ok: false,
      refusal: "other_deployment",
      message: `the lease is for deployment ${p.deployment_id}, this install is ${ctx.deploymentId}`
    };
  if (!ctx.pinnedIds.includes(p.public_key_id))
    return {
      ok: false,
      refusal: "unpinned_key",
      message: `the lease is signed by key ${p.public_key_id}, which is not pinned (SVC_LICENSE_PINNED_KEY_IDS)`
    };
  const refusal = await verifyLeaseSignature(lease, ctx.keys);
  if (refusal === "unknown_key")
    return {
      ok: false,
      refusal: "key_not_fetched",
      message: `pinned key ${p.public_key_id} has not been fetched from the vendor yet; the daemon needs to reach it once`
    };
  if (refusal === "bad_signature")
    return {
      ok: false,
      refusal: "bad_signature",
      message: `the signature of lease ${p.lease_id} does not verify: the file was altered`
    };
  if (p.serial < ctx.highestSerial)
    return {
      ok: false,
      refusal: "older_serial",
      message: `lease serial ${p.serial} is older than serial ${ctx.highestSerial} already seen: refusing a rolled-back lease file`
    };
  if (Date.parse(p.issued_at) > ctx.nowMs + ISSUE_SKEW_MS)
    return {
      ok: false,
      refusal: "clock_rollback",
      message: `the lease was issued at ${p.issued_at}, after the clock's ${new Date(ctx.nowMs).toISOString()}: the clock is behind`
    };
  const at = leaseStateAt({
    expiresAtMs: Date.parse(p.expires_at),
    graceSeconds: p.grace_period_seconds,
    nowMs: ctx.nowMs
  });
  return { ok: true, lease, ...at };
}

// lib/src/license/holder-files.ts
import { readFile } from "node:fs/promises";
import { join } from "node:path";
var CLOCK_SLACK_MS = 6e4;
function holderPaths(dir) {
  return {
    dir,
    lease: join(dir, "lease.json"),
    status: join(dir, "status.json"),
    memory: join(dir, "state.json"),
    keys: join(dir, "pinned-keys.json"),
    device: join(dir, "device-key.json")
  };
}
async function readIfExists(path) {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if (err.code === "ENOENT") return void 0;
    throw err;
  }
}
async function readMemory(paths) {
  const text = await readIfExists(paths.memory);
  const fresh = { highestSerial: 0, lastRunAtMs: 0, revoked: false };
  if (!text) return fresh;
  const m = JSON.parse(text);
  return { ...fresh, ...m };
}
async function readPinnedKeys(paths, pinned) {
  const text = await readIfExists(paths.keys);
  const cached = text ? JSON.parse(text) : {};
  return pinnedOnly(cached, pinned);
}
function pinnedOnly(cached, pinned) {
  return pinned.flatMap((id) => {
    const raw = cached[id] ? fromBase64Url(cached[id]) : void 0;
    return raw?.length === 32 && publicKeyIdOf(raw) === id ? [leasePublicKey(raw)] : [];
  });
}

// lib/src/license/license-gate.ts
var LICENSE_FEATURES = ["byoc_deployments", "kb_federation", "live_trading"];
var OPEN = {
  enforced: false,
  standing: () => ({ state: "valid", secondsLeft: 0, entitlements: {} }),
  admits() {
    return { admitted: true, grace: false, standing: this.standing() };
  },
  refresh: async () => {
  },
  close: () => {
  }
};
async function openLicenseGate(opts) {
  if (!opts.enforced) return OPEN;
  const now = opts.now ?? Date.now;
  const paths = holderPaths(opts.dir);
  const log = opts.log.child({ component: "license-gate", deployment_id: opts.deploymentId });
  let checked = { ok: false, refusal: "no_lease", message: "not read yet" };
  let lastRunAtMs = 0;
  let reading;
  let again;
  let logged;
  async function read() {
    try {
      const memory = await readMemory(paths);
      lastRunAtMs = memory.lastRunAtMs;
      checked = await checkLease(await readIfExists(paths.lease), {
        deploymentId: opts.deploymentId,
        pinnedIds: opts.pinnedIds,
        keys: await readPinnedKeys(paths, opts.pinnedIds),
        highestSerial: memory.highestSerial,
        nowMs: now()
      });
    } catch (err) {
      checked = {
        ok: false,
        refusal: "malformed",
        message: `the license folder ${opts.dir} cannot be read: ${err.message}`
      };
    }
    const s = standing();
    const line = `${s.state}:${s.reason ?? ""}:${s.leaseId ?? ""}`;
    if (line === logged) return;
    logged = line;
    const fields = { state: s.state, lease_id: s.leaseId, seconds_left: s.secondsLeft };
    if (s.state === "valid") log.info(fields, "license valid: licensed features are open");
    else if (s.state === "grace")
      log.warn(fields, "license in grace: licensed features pass with X-Service-License-Status");
    else
      log.error(
        { ...fields, reason: s.reason },
        `license ${s.state}: ${LICENSE_FEATURES.join(", ")} are refused (403 license_invalid) and trading bots are reduce-only until a lease is renewed`
      );
  }
  function standing() {
    if (!checked.ok)
      return { state: "invalid", secondsLeft: 0, reason: checked.message, entitlements: {} };
    const p = checked.lease.payload;
    const nowMs = now();
    const base = { leaseId: p.lease_id, expiresAt: p.expires_at, entitlements: p.entitlements };
    if (nowMs < lastRunAtMs - CLOCK_SLACK_MS)
      return {
        ...base,
        state: "invalid",
        secondsLeft: 0,
        reason: `the clock reads earlier than the license daemon's last run at ${new Date(lastRunAtMs).toISOString()}: clock rollback`
      };
    const at = leaseStateAt({
      expiresAtMs: Date.parse(p.expires_at),
      graceSeconds: p.grace_period_seconds,
      nowMs
    });
    return at.state === "expired" ? {
      ...base,
      ...at,
      reason: `lease ${p.lease_id} expired at ${p.expires_at} and its grace period is over`
    } : { ...base, ...at };
  }
  const refresh = () => {
    if (!reading) return reading = read().finally(() => reading = void 0);
    const next = () => {
      again = void 0;
      return refresh();
    };
    return again ??= reading.then(next, next);
  };
  await refresh();
  const timer = setInterval(() => void refresh(), opts.refreshMs);
  timer.unref();
  return {
    enforced: true,
    standing,
    admits(feature) {
      const s = standing();
      if (s.state === "expired" || s.state === "invalid")
        return { admitted: false, reason: s.reason ?? s.state, standing: s };
      if (s.entitlements[feature] !== true)
        return {
          admitted: false,
          reason: `lease ${s.leaseId} does not entitle ${feature} (entitlements.${feature} is not true)`,
          standing: s
        };
      return { admitted: true, grace: s.state === "grace", standing: s };
    },
    refresh,
    close: () => clearInterval(timer)
  };
}

// lib/src/license/license-interceptor.ts
var LICENSE_STATUS_HEADER = "x-service-license-status";
function createLicenseInterceptor(gate) {
  const features = /* @__PURE__ */ new Map();
  const featureOf = (method) => {
    if (!features.has(method))
      features.set(method, entitlementName(getOption(method, license_feature)));
    return features.get(method);
  };
  return (next) => async (req) => {
    const feature = gate.enforced ? featureOf(req.method) : void 0;
    if (!feature) return next(req);
    const verdict = gate.admits(feature);
    if (!verdict.admitted)
      throw svcError(
        Code.PermissionDenied,
        "license_invalid",
        `${feature} needs a valid license lease: ${verdict.reason}`,
        {
          feature,
          license_status: verdict.standing.state,
          ...verdict.standing.leaseId ? { lease_id: verdict.standing.leaseId } : {}
        },
        { headers: { [LICENSE_STATUS_HEADER]: verdict.standing.state } }
      );
    if (!verdict.grace) return next(req);
    try {
      const res = await next(req);
      res.header.set(LICENSE_STATUS_HEADER, "grace");
      return res;
    } catch (err) {
      const e = err instanceof ConnectError ? err : connectErrorOf(err, req.contextValues.get(requestIdKey));
      e.metadata.set(LICENSE_STATUS_HEADER, "grace");
      throw e;
    }
  };
}
function entitlementName(f) {
  if (f === LicenseFeature.UNSPECIFIED) return void 0;
  return LicenseFeature[f].toLowerCase();
}

// lib/src/server/platform.ts
function authSettingsFrom(config) {
  return config.auth;
}
function standardInterceptors(config, log, license, bus, hasMembership) {
  const settings = authSettingsFrom(config);
  return [
    createLoggingInterceptor(log),
    createTracingInterceptor(),
    createRefusalAuditInterceptor(bus, log),
    createMembershipAuditInterceptor(bus, log),
    exceptHealth(
      createAuthInterceptor({ settings, verifier: createTokenVerifier(settings), hasMembership })
    ),
    createLicenseInterceptor(license),
    createValidationInterceptor()
  ];
}
function internalInterceptors(log, caller) {
  return [
    createLoggingInterceptor(log),
    createTracingInterceptor(),
    createServicePrincipalInterceptor(caller),
    createValidationInterceptor()
  ];
}
async function openPlatform(config, name, overrides = {}) {
  const log = overrides.log ?? createLogger({ name, level: config.logLevel, format: config.logFormat });
  const dataDir = config.dataDir === "memory://" ? void 0 : config.dataDir;
  const db = overrides.db ?? await openDatabase({
    url: config.databaseUrl,
    dataDir,
    timeoutMs: config.timeouts.dbMs,
    sharedBuffersMb: config.pglite.sharedBuffersMb
  });
  const bus = overrides.bus ?? await openEventBus({
    url: config.natsUrl,
    namespace: config.natsNamespace,
    timeoutMs: config.timeouts.busMs
  });
  const kv = overrides.kv ?? await openKeyValueStore({ url: config.redisUrl, timeoutMs: config.timeouts.kvMs });
  const holder = config.licenseHolder;
  const license = overrides.license ?? await openLicenseGate({
    enforced: config.flags.licenseEnforcementEnabled,
    dir: holder.dir,
    deploymentId: holder.deploymentId ?? "",
    pinnedIds: holder.pinnedKeyIds,
    refreshMs: holder.refreshMs,
    log
  });
  let membership;
  const notWired = () => svcError(
    Code.Unavailable,
    "membership_unverifiable",
    "this service cannot ask the identity service for membership rows (it runs apart from it without SVC_IDENTITY_URL or its SVC_SERVICE_CLIENT_ID/_SECRET): SVC_AUTH_ENFORCE refuses until it can"
  );
  const hasMembership = Object.assign(
    (p) => {
      if (membership) return membership(p);
      throw notWired();
    },
    {
      forHalt: async (p) => {
        if (!membership) throw notWired();
        if (membership.forHalt) return membership.forHalt(p);
        return { member: await membership(p), source: "verified" };
      },
      fresh: (p) => {
        if (!membership) throw notWired();
        return (membership.fresh ?? membership)(p);
      }
    }
  );
  const agentBroker = openAgentBroker(config, log);
  const telemetry = await startProcessTelemetry(config, log, name);
  if (!license.enforced)
    log.info(
      "license enforcement is off (SVC_LICENSE_ENFORCEMENT_ENABLED=false): licensed features are open"
    );
  return {
    config,
    db,
    bus,
    kv,
    log,
    license,
    interceptors: standardInterceptors(
      withServiceAudience(config, name),
      log,
      license,
      bus,
      hasMembership
    ),
    ...agentBroker ? { agentBroker } : {},
    useMembershipLookup(lookup) {
      membership = lookup;
    },
    async ready() {
      const probes = [
        withDeadline(sql`select 1`.execute(db.db), config.timeouts.dbMs, "database"),
        kv.ping(),
        bus.ping()
      ];
      const results = await Promise.allSettled(probes);
      const failed = results.flatMap(
        (r, i) => r.status === "rejected" ? [{ store: ["database", "key-value store", "bus"][i], err: String(r.reason) }] : []
      );
      if (failed.length > 0) log.warn({ failed }, "not ready: a store does not answer");
      return failed.length === 0;
    },
    async close() {
      await telemetry.close();
      if (!overrides.license) license.close();
      if (!overrides.bus) await bus.close();
      if (!overrides.kv) await kv.close();
      if (!overrides.db) await db.close();
    }
  };
}
var SERVICES = /* @__PURE__ */ new Set(["bots", "promotion", "killswitch", "compliance", "identity"]);
function withServiceAudience(config, name) {
  if (!SERVICES.has(name) || config.auth.provider !== "oidc") return config;
  return { ...config, auth: { ...config.auth, serviceAudience: serviceAudienceOf(name) } };
}
function exceptHealth(interceptor) {
  return (next) => {
    const guarded = interceptor(next);
    return (req) => req.service.typeName === "grpc.health.v1.Health" ? next(req) : guarded(req);
  };
}
function openAgentBroker(config, log) {
  const { clientId, clientSecret, delegationTtlSeconds } = config.agentBroker;
  const enabled = config.auth.agentTokensEnabled && config.auth.provider === "oidc";
  if (!enabled) {
    if (clientId || clientSecret)
      log.warn(
        "SVC_AUTH_AGENT_BROKER_CLIENT_ID/_SECRET are set but delegation is off (SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED=true and SVC_AUTH_PROVIDER=oidc turn it on): they are not used"
      );
    return void 0;
  }
  if (!clientId || !clientSecret || !config.auth.issuer) {
    log.warn(
      "delegated agent tokens are accepted, but the platform mints none: set SVC_AUTH_AGENT_BROKER_CLIENT_ID and SVC_AUTH_AGENT_BROKER_CLIENT_SECRET"
    );
    return void 0;
  }
  log.info(
    { client_id: clientId, ttl_seconds: delegationTtlSeconds },
    "agent token broker on: delegations through the svc-agent-delegation profile (research chat acts with them when SVC_CHAT_AGENT_CLIENT_ID/_SECRET name its agent)"
  );
  return createAgentBroker({
    issuer: config.auth.issuer,
    clientId,
    clientSecret,
    ttlSeconds: delegationTtlSeconds,
    timeoutMs: config.timeouts.dbMs
  });
}

// gen/src/svc/identity/v1/identity_pb.js
var file_svc_identity_v1_identity = /* @__PURE__ */ fileDesc("Ch5zdmMvaWRlbnRpdHkvdjEvaWRlbnRpdHkucHJvdG8SD3N2Yy5pZGVudGl0eS52MSI3Cg9SZXF1ZXN0ZWRDbGFpbXMSEgoKY29ubmVjdGlvbhgBIAEoCRIQCghzdHJhdGVneRgCIAEoCSLJAQoPT2lkY1N5bmNSZXF1ZXN0EhoKB3VzZXJfaWQYASABKAlCCZL0GAUIARiAAhIYCgVlbWFpbBgCIAEoCUIJkvQYBQgBGMACEiAKD29yZ2FuaXphdGlvbl9pZBgDIAEoCUIHkvQYAxiAAhIiChFvcmdhbml6YXRpb25fbmFtZRgEIAEoCUIHkvQYAxiAAhI6ChByZXF1ZXN0ZWRfY2xhaW1zGAUgASgLMiAuc3ZjLmlkZW50aXR5LnYxLlJlcXVlc3RlZENsYWltcyKqAQoQT2lkY1N5bmNSZXNwb25zZRIOCgZvcmdfaWQYASABKAkSDwoHdGVhbV9pZBgCIAEoCRIUCgx3b3Jrc3BhY2VfaWQYAyABKAkSEgoKcHJvamVjdF9pZBgEIAEoCRIOCgZsYWJfaWQYBSABKAkSDQoFcm9sZXMYBiADKAkSEgoKY29ubmVjdGlvbhgHIAEoCRIYChBpbnRlcm5hbF91c2VyX2lkGAggASgJIscBChRJZHBTeW5jR3JvdXBzUmVxdWVzdBIaCgd1c2VyX2lkGAEgASgJQgmS9BgFCAEYgAISIAoTaWRwX29yZ2FuaXphdGlvbl9pZBgCIAEoCUgAiAEBEkAKD2Nvbm5lY3Rpb25fa2luZBgDIAEoDjIfLnN2Yy5pZGVudGl0eS52MS5Db25uZWN0aW9uS2luZEIGkvQYAggBEhcKD2V4dGVybmFsX2dyb3VwcxgEIAMoCUIWChRfaWRwX29yZ2FuaXphdGlvbl9pZCJwChVJZHBTeW5jR3JvdXBzUmVzcG9uc2USHAoUbWVtYmVyc2hpcHNfdXBzZXJ0ZWQYASABKAUSHAoUbm9fYWN0aXZlX2Nvbm5lY3Rpb24YAiABKAgSGwoTbWVtYmVyc2hpcHNfcmVtb3ZlZBgDIAEoBSJACgpNZW1iZXJzaGlwEhIKCnNjb3BlX2tpbmQYASABKAkSEAoIc2NvcGVfaWQYAiABKAkSDAoEcm9sZRgDIAEoCSI2ChhMaXN0TWVtYmVyc2hpcHNPZlJlcXVlc3QSGgoHc3ViamVjdBgBIAEoCUIJkvQYBQgBGIAEIk0KGUxpc3RNZW1iZXJzaGlwc09mUmVzcG9uc2USMAoLbWVtYmVyc2hpcHMYASADKAsyGy5zdmMuaWRlbnRpdHkudjEuTWVtYmVyc2hpcCIPCg1XaG9BbUlSZXF1ZXN0IosCCg5XaG9BbUlSZXNwb25zZRILCgNzdWIYASABKAkSEgoKYWN0b3JfdHlwZRgCIAEoCRIYChBvbl9iZWhhbGZfb2Zfc3ViGAMgASgJEg4KBm9yZ19pZBgEIAEoCRIUCgx3b3Jrc3BhY2VfaWQYBSABKAkSMAoLbWVtYmVyc2hpcHMYBiADKAsyGy5zdmMuaWRlbnRpdHkudjEuTWVtYmVyc2hpcBINCgVyb2xlcxgHIAMoCRIOCgZzY29wZXMYCCADKAkSCwoDYWNyGAkgASgJEgsKA2FtchgKIAMoCRItCglhdXRoX3RpbWUYCyABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wInAKDExvZ2luUmVxdWVzdBIbCgphY3JfdmFsdWVzGAEgASgJQgeS9BgDGIAIEhoKCXJldHVybl90bxgCIAEoCUIHkvQYAxiAEBInCgdtYXhfYWdlGAMgASgFQhaS9BgSIQAAAAAAAAAAKQAAAAAAGPVAIiEKDUxvZ2luUmVzcG9uc2USEAoIbG9jYXRpb24YASABKAkilwEKFExvZ2luQ2FsbGJhY2tSZXF1ZXN0EhUKBGNvZGUYASABKAlCB5L0GAMYgCASFgoFc3RhdGUYAiABKAlCB5L0GAMYgCASFgoFZXJyb3IYAyABKAlCB5L0GAMYgAISIgoRZXJyb3JfZGVzY3JpcHRpb24YBCABKAlCB5L0GAMYgBASFAoDaXNzGAUgASgJQgeS9BgDGIAQIoADChFJc3N1ZUxlYXNlUmVxdWVzdBI/Cg1kZXBsb3ltZW50X2lkGAEgASgJQiiS9BgkCAESHV5bQS1aYS16MC05XVtBLVphLXowLTkuXzotXSokGIACEi0KDGVudGl0bGVtZW50cxgCIAEoCzIXLmdvb2dsZS5wcm90b2J1Zi5TdHJ1Y3QSKwoLdHRsX3NlY29uZHMYAyABKANCFpL0GBIhAAAAAAAAAAApAAAAAFAofkESHAoLY3VzdG9tZXJfaWQYBCABKAlCB5L0GAMYgAISHgoOcmVuZXdfbGVhc2VfaWQYBSABKAlCBpL0GAIYQBIiChFkZXZpY2VfY3JlZGVudGlhbBgGIAEoCUIHkvQYAxiAIBI2ChFkZXZpY2VfcHVibGljX2tleRgHIAEoCUIbkvQYFxITXltBLVphLXowLTlfLV17NDN9JBhAEjQKEGNvbnRyYWN0X2VuZHNfYXQYCCABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wIqoBChJJc3N1ZUxlYXNlUmVzcG9uc2USDQoFbGVhc2UYASABKAkSEAoIbGVhc2VfaWQYAiABKAkSFQoNcHVibGljX2tleV9pZBgDIAEoCRIuCgpleHBpcmVzX2F0GAQgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIcChRncmFjZV9wZXJpb2Rfc2Vjb25kcxgFIAEoAxIOCgZzZXJpYWwYBiABKAMiHAoaR2V0TGljZW5zZVB1YmxpY0tleVJlcXVlc3QilwEKEExpY2Vuc2VQdWJsaWNLZXkSFQoNcHVibGljX2tleV9pZBgBIAEoCRISCgpwdWJsaWNfa2V5GAIgASgJEhYKDnB1YmxpY19rZXlfcGVtGAMgASgJEg4KBmFjdGl2ZRgEIAEoCBIwCgxzZXJ2ZWRfdW50aWwYBSABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wIpkBChtHZXRMaWNlbnNlUHVibGljS2V5UmVzcG9uc2USFQoNcHVibGljX2tleV9pZBgBIAEoCRISCgpwdWJsaWNfa2V5GAIgASgJEh4KFnJldGlyZWRfcHVibGljX2tleV9pZHMYAyADKAkSLwoEa2V5cxgEIAMoCzIhLnN2Yy5pZGVudGl0eS52MS5MaWNlbnNlUHVibGljS2V5IlwKHVJldm9rZURlcGxveW1lbnRMZWFzZXNSZXF1ZXN0EiAKDWRlcGxveW1lbnRfaWQYASABKAlCCZL0GAUIARiAAhIZCgZyZWFzb24YAiABKAlCCZL0GAUIARjQDyIxCh5SZXZva2VEZXBsb3ltZW50TGVhc2VzUmVzcG9uc2USDwoHcmV2b2tlZBgBIAEoBSKAAgoPSWRwR3JvdXBNYXBwaW5nEgoKAmlkGAEgASgJEg4KBm9yZ19pZBgCIAEoCRI4Cg9jb25uZWN0aW9uX2tpbmQYAyABKA4yHy5zdmMuaWRlbnRpdHkudjEuQ29ubmVjdGlvbktpbmQSIQoOZXh0ZXJuYWxfZ3JvdXAYBCABKAlCCZL0GAUIARiABBI+CgpzY29wZV9raW5kGAUgASgJQiqS9BgmCAESIl4ob3JnfHRlYW18d29ya3NwYWNlfHByb2plY3R8bGFiKSQSGwoIc2NvcGVfaWQYBiABKAlCCZL0GAUIARiAAhIXCgRyb2xlGAcgASgJQgmS9BgFCAEYgAEiNQobTGlzdElkcEdyb3VwTWFwcGluZ3NSZXF1ZXN0EhYKBm9yZ19pZBgBIAEoCUIGkvQYAggBIk8KHExpc3RJZHBHcm91cE1hcHBpbmdzUmVzcG9uc2USLwoFaXRlbXMYASADKAsyIC5zdmMuaWRlbnRpdHkudjEuSWRwR3JvdXBNYXBwaW5nInEKHENyZWF0ZUlkcEdyb3VwTWFwcGluZ1JlcXVlc3QSFgoGb3JnX2lkGAEgASgJQgaS9BgCCAESOQoHbWFwcGluZxgCIAEoCzIgLnN2Yy5pZGVudGl0eS52MS5JZHBHcm91cE1hcHBpbmdCBpL0GAIIASJSChxEZWxldGVJZHBHcm91cE1hcHBpbmdSZXF1ZXN0EhYKBm9yZ19pZBgBIAEoCUIGkvQYAggBEhoKCm1hcHBpbmdfaWQYAiABKAlCBpL0GAIIASIwCh1EZWxldGVJZHBHcm91cE1hcHBpbmdSZXNwb25zZRIPCgdkZWxldGVkGAEgASgIIjsKCE1jcEFjdG9yEhUKDWFnZW50X3N1YmplY3QYASABKAkSGAoQb25fYmVoYWxmX29mX3N1YhgCIAEoCSJ4ChRJbnZva2VNY3BUb29sUmVxdWVzdBI0Cgl0b29sX25hbWUYASABKAlCIZL0GB0IARIZXlthLXpdW2EtejAtOV8uLV17MCwxMjd9JBIqCglhcmd1bWVudHMYAiABKAsyFy5nb29nbGUucHJvdG9idWYuU3RydWN0IhUKE0xpc3RNY3BUb29sc1JlcXVlc3QifwoHTWNwVG9vbBIMCgRuYW1lGAEgASgJEhMKC2Rlc2NyaXB0aW9uGAIgASgJEi0KDGlucHV0X3NjaGVtYRgDIAEoCzIXLmdvb2dsZS5wcm90b2J1Zi5TdHJ1Y3QSDgoGc2NvcGVzGAQgAygJEhIKCmFnZW50X29ubHkYBSABKAgiPwoUTGlzdE1jcFRvb2xzUmVzcG9uc2USJwoFdG9vbHMYASADKAsyGC5zdmMuaWRlbnRpdHkudjEuTWNwVG9vbCJqChVJbnZva2VNY3BUb29sUmVzcG9uc2USJwoGcmVzdWx0GAEgASgLMhcuZ29vZ2xlLnByb3RvYnVmLlN0cnVjdBIoCgVhY3RvchgCIAEoCzIZLnN2Yy5pZGVudGl0eS52MS5NY3BBY3RvciLmAgoKQXVkaXRFdmVudBILCgNzZXEYASABKAMSCgoCaWQYAiABKAkSLwoLb2NjdXJyZWRfYXQYAyABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEg8KB3NlcnZpY2UYBCABKAkSDgoGYWN0aW9uGAUgASgJEg8KB291dGNvbWUYBiABKAkSEAoIcmVzb3VyY2UYByABKAkSKAoFYWN0b3IYCCABKAsyGS5zdmMuZXZlbnRzLnYxLkF1ZGl0QWN0b3ISEgoKcmVxdWVzdF9pZBgJIAEoCRIQCgh0cmFjZV9pZBgKIAEoCRIoCgdkZXRhaWxzGAsgASgLMhcuZ29vZ2xlLnByb3RvYnVmLlN0cnVjdBIRCglwcmV2X2hhc2gYDCABKAkSDAoEaGFzaBgNIAEoCRIvCgtyZWNvcmRlZF9hdBgOIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXAi/QEKFkxpc3RBdWRpdEV2ZW50c1JlcXVlc3QSFgoFYWN0b3IYASABKAlCB5L0GAMYgAQSFwoGYWN0aW9uGAIgASgJQgeS9BgDGIACEhkKCHJlc291cmNlGAMgASgJQgeS9BgDGIAEEikKBXNpbmNlGAQgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIpCgV1bnRpbBgFIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASJQoFbGltaXQYBiABKAVCFpL0GBIhAAAAAAAA8D8pAAAAAABAj0ASGgoKcGFnZV90b2tlbhgHIAEoCUIGkvQYAhhAIl4KF0xpc3RBdWRpdEV2ZW50c1Jlc3BvbnNlEioKBWl0ZW1zGAEgAygLMhsuc3ZjLmlkZW50aXR5LnYxLkF1ZGl0RXZlbnQSFwoPbmV4dF9wYWdlX3Rva2VuGAIgASgJInIKD0F1ZGl0Q2hlY2twb2ludBIOCgZmb3JtYXQYASABKAkSCwoDc2VxGAIgASgDEhEKCWhlYWRfaGFzaBgDIAEoCRIMCgR0aW1lGAQgASgJEg4KBmtleV9pZBgFIAEoCRIRCglzaWduYXR1cmUYBiABKAkiTAoSQXVkaXRDaGVja3BvaW50S2V5Eg4KBmtleV9pZBgBIAEoCRIWCg5wdWJsaWNfa2V5X3BlbRgCIAEoCRIOCgZhY3RpdmUYAyABKAgiRAobTGlzdEF1ZGl0Q2hlY2twb2ludHNSZXF1ZXN0EiUKBWxpbWl0GAEgASgFQhaS9BgSIQAAAAAAAPA/KQAAAAAAiMNAIpEBChxMaXN0QXVkaXRDaGVja3BvaW50c1Jlc3BvbnNlEi8KBWl0ZW1zGAEgAygLMiAuc3ZjLmlkZW50aXR5LnYxLkF1ZGl0Q2hlY2twb2ludBIxCgRrZXlzGAIgAygLMiMuc3ZjLmlkZW50aXR5LnYxLkF1ZGl0Q2hlY2twb2ludEtleRINCgVzdG9yZRgDIAEoCSIeChxDcmVhdGVBdWRpdENoZWNrcG9pbnRSZXF1ZXN0IlUKHUNyZWF0ZUF1ZGl0Q2hlY2twb2ludFJlc3BvbnNlEjQKCmNoZWNrcG9pbnQYASABKAsyIC5zdmMuaWRlbnRpdHkudjEuQXVkaXRDaGVja3BvaW50IhkKF1ZlcmlmeUF1ZGl0VHJhaWxSZXF1ZXN0IowCChhWZXJpZnlBdWRpdFRyYWlsUmVzcG9uc2USDgoGaW50YWN0GAEgASgIEgwKBHJvd3MYAiABKAMSEAoIaGVhZF9zZXEYAyABKAMSEQoJaGVhZF9oYXNoGAQgASgJEhQKDGFuY2hvcmVkX3NlcRgFIAEoAxITCgtjaGVja3BvaW50cxgGIAEoBRIdChV1bnRydXN0ZWRfY2hlY2twb2ludHMYByABKAUSFQoNZmlyc3RfYmFkX3NlcRgIIAEoAxIUCgxmaXJzdF9iYWRfaWQYCSABKAkSDwoHcHJvYmxlbRgKIAEoCRILCgN3aHkYCyABKAkSGAoQY2hlY2twb2ludF9zdG9yZRgMIAEoCSrGAgoOQ29ubmVjdGlvbktpbmQSHwobQ09OTkVDVElPTl9LSU5EX1VOU1BFQ0lGSUVEEAASJQohQ09OTkVDVElPTl9LSU5EX0RJUkVDVE9SWV9TRVJWSUNFEAESIwofQ09OTkVDVElPTl9LSU5EX1dPUktTUEFDRV9TVUlURRACEh0KGUNPTk5FQ1RJT05fS0lORF9DTE9VRF9TU08QAxIgChxDT05ORUNUSU9OX0tJTkRfSURQX1ZFTkRPUl8xEAQSIAocQ09OTkVDVElPTl9LSU5EX0lEUF9WRU5ET1JfMhAFEiAKHENPTk5FQ1RJT05fS0lORF9JRFBfVkVORE9SXzMQBhIgChxDT05ORUNUSU9OX0tJTkRfR0VORVJJQ19TQU1MEAcSIAocQ09OTkVDVElPTl9LSU5EX0dFTkVSSUNfT0lEQxAIMoUHCg9JZGVudGl0eVNlcnZpY2USkgEKCE9pZGNTeW5jEiAuc3ZjLmlkZW50aXR5LnYxLk9pZGNTeW5jUmVxdWVzdBohLnN2Yy5pZGVudGl0eS52MS5PaWRjU3luY1Jlc3BvbnNlIkHK8xgfCgRQT1NUEhQvX2ludGVybmFsL29pZGMvc3luYxoBKtLzGAIIA9rzGBRwb3N0LWxvZ2luIHN5bmMgaG9vaxKmAQoNSWRwU3luY0dyb3VwcxIlLnN2Yy5pZGVudGl0eS52MS5JZHBTeW5jR3JvdXBzUmVxdWVzdBomLnN2Yy5pZGVudGl0eS52MS5JZHBTeW5jR3JvdXBzUmVzcG9uc2UiRsrzGCUKBFBPU1QSGi9faW50ZXJuYWwvaWRwL3N5bmMtZ3JvdXBzGgEq0vMYAggD2vMYE2V4dGVybmFsIGdyb3VwIHN5bmMSyAEKEUxpc3RNZW1iZXJzaGlwc09mEikuc3ZjLmlkZW50aXR5LnYxLkxpc3RNZW1iZXJzaGlwc09mUmVxdWVzdBoqLnN2Yy5pZGVudGl0eS52MS5MaXN0TWVtYmVyc2hpcHNPZlJlc3BvbnNlIlzK8xgnCgNHRVQSIC9faW50ZXJuYWwvbWVtYmVyc2hpcHMve3N1YmplY3R90vMYLQgDKAEyBGJvdHMyCXByb21vdGlvbjIKa2lsbHN3aXRjaDIKY29tcGxpYW5jZRJ1CgZXaG9BbUkSHi5zdmMuaWRlbnRpdHkudjEuV2hvQW1JUmVxdWVzdBofLnN2Yy5pZGVudGl0eS52MS5XaG9BbUlSZXNwb25zZSIqyvMYHAoDR0VUEgwvYXV0aC93aG9hbWkiBy93aG9hbWnS8xgGCAIgASgBEm4KBUxvZ2luEh0uc3ZjLmlkZW50aXR5LnYxLkxvZ2luUmVxdWVzdBoeLnN2Yy5pZGVudGl0eS52MS5Mb2dpblJlc3BvbnNlIibK8xgcCgNHRVQSCy9hdXRoL2xvZ2luOghsb2NhdGlvbtLzGAIIARKBAQoNTG9naW5DYWxsYmFjaxIlLnN2Yy5pZGVudGl0eS52MS5Mb2dpbkNhbGxiYWNrUmVxdWVzdBoeLnN2Yy5pZGVudGl0eS52MS5Mb2dpblJlc3BvbnNlIinK8xgfCgNHRVQSDi9hdXRoL2NhbGxiYWNrOghsb2NhdGlvbtLzGAIIATLOBAoOTGljZW5zZVNlcnZpY2USpAEKCklzc3VlTGVhc2USIi5zdmMuaWRlbnRpdHkudjEuSXNzdWVMZWFzZVJlcXVlc3QaIy5zdmMuaWRlbnRpdHkudjEuSXNzdWVMZWFzZVJlc3BvbnNlIk3K8xgiCgRQT1NUEhQvYXV0aC9saWNlbnNlL2xlYXNlcxoBKkDJAdLzGBEIARINaXNzdWU6bGljZW5zZdrzGA5saWNlbnNlIGxlYXNlcxKtAQoTR2V0TGljZW5zZVB1YmxpY0tleRIrLnN2Yy5pZGVudGl0eS52MS5HZXRMaWNlbnNlUHVibGljS2V5UmVxdWVzdBosLnN2Yy5pZGVudGl0eS52MS5HZXRMaWNlbnNlUHVibGljS2V5UmVzcG9uc2UiO8rzGB8KA0dFVBIYL2F1dGgvbGljZW5zZS9wdWJsaWMta2V50vMYAggB2vMYDmxpY2Vuc2UgbGVhc2VzEuQBChZSZXZva2VEZXBsb3ltZW50TGVhc2VzEi4uc3ZjLmlkZW50aXR5LnYxLlJldm9rZURlcGxveW1lbnRMZWFzZXNSZXF1ZXN0Gi8uc3ZjLmlkZW50aXR5LnYxLlJldm9rZURlcGxveW1lbnRMZWFzZXNSZXNwb25zZSJpyvMYPAoEUE9TVBIxL2FkbWluL2xpY2Vuc2UvZGVwbG95bWVudHMve2RlcGxveW1lbnRfaWR9L3Jldm9rZRoBKtLzGBMIAhINYWRtaW46bGljZW5zZRgB2vMYDmxpY2Vuc2UgbGVhc2VzMtMFCg5UZW5hbmN5U2VydmljZRLjAQoUTGlzdElkcEdyb3VwTWFwcGluZ3MSLC5zdmMuaWRlbnRpdHkudjEuTGlzdElkcEdyb3VwTWFwcGluZ3NSZXF1ZXN0Gi0uc3ZjLmlkZW50aXR5LnYxLkxpc3RJZHBHcm91cE1hcHBpbmdzUmVzcG9uc2UibsrzGDAKA0dFVBIpL3RlbmFuY3kvb3Jncy97b3JnX2lkfS9pZHAtZ3JvdXAtbWFwcGluZ3PS8xgSCAISDGFkbWluOnRlbmFudCgB2vMYIGlkZW50aXR5LXByb3ZpZGVyIGdyb3VwIG1hcHBpbmdzEuMBChVDcmVhdGVJZHBHcm91cE1hcHBpbmcSLS5zdmMuaWRlbnRpdHkudjEuQ3JlYXRlSWRwR3JvdXBNYXBwaW5nUmVxdWVzdBogLnN2Yy5pZGVudGl0eS52MS5JZHBHcm91cE1hcHBpbmciecrzGD0KBFBPU1QSKS90ZW5hbmN5L29yZ3Mve29yZ19pZH0vaWRwLWdyb3VwLW1hcHBpbmdzGgdtYXBwaW5nQMkB0vMYEAgCEgxhZG1pbjp0ZW5hbnTa8xggaWRlbnRpdHktcHJvdmlkZXIgZ3JvdXAgbWFwcGluZ3MS9AEKFURlbGV0ZUlkcEdyb3VwTWFwcGluZxItLnN2Yy5pZGVudGl0eS52MS5EZWxldGVJZHBHcm91cE1hcHBpbmdSZXF1ZXN0Gi4uc3ZjLmlkZW50aXR5LnYxLkRlbGV0ZUlkcEdyb3VwTWFwcGluZ1Jlc3BvbnNlInzK8xhACgZERUxFVEUSNi90ZW5hbmN5L29yZ3Mve29yZ19pZH0vaWRwLWdyb3VwLW1hcHBpbmdzL3ttYXBwaW5nX2lkfdLzGBAIAhIMYWRtaW46dGVuYW502vMYIGlkZW50aXR5LXByb3ZpZGVyIGdyb3VwIG1hcHBpbmdzMuQCCgpNY3BTZXJ2aWNlEsIBCg1JbnZva2VNY3BUb29sEiUuc3ZjLmlkZW50aXR5LnYxLkludm9rZU1jcFRvb2xSZXF1ZXN0GiYuc3ZjLmlkZW50aXR5LnYxLkludm9rZU1jcFRvb2xSZXNwb25zZSJiyvMYNQoEUE9TVBIiL21jcC9kYXRhL3Rvb2xzL3t0b29sX25hbWV9L2ludm9rZRoJYXJndW1lbnRz0vMYEwgCEg1yZWFkOm1jcDpkYXRhIAHa8xgOTUNQIGRhdGEgdG9vbHMSkAEKDExpc3RNY3BUb29scxIkLnN2Yy5pZGVudGl0eS52MS5MaXN0TWNwVG9vbHNSZXF1ZXN0GiUuc3ZjLmlkZW50aXR5LnYxLkxpc3RNY3BUb29sc1Jlc3BvbnNlIjPK8xgWCgNHRVQSDy9tY3AvZGF0YS90b29sc9LzGBUIAhINcmVhZDptY3A6ZGF0YSABKAEytAUKDEF1ZGl0U2VydmljZRKYAQoPTGlzdEF1ZGl0RXZlbnRzEicuc3ZjLmlkZW50aXR5LnYxLkxpc3RBdWRpdEV2ZW50c1JlcXVlc3QaKC5zdmMuaWRlbnRpdHkudjEuTGlzdEF1ZGl0RXZlbnRzUmVzcG9uc2UiMsrzGBoKA0dFVBITL2FkbWluL2F1ZGl0LWV2ZW50c9LzGBAIAhIKcmVhZDphdWRpdCgBEqwBChRMaXN0QXVkaXRDaGVja3BvaW50cxIsLnN2Yy5pZGVudGl0eS52MS5MaXN0QXVkaXRDaGVja3BvaW50c1JlcXVlc3QaLS5zdmMuaWRlbnRpdHkudjEuTGlzdEF1ZGl0Q2hlY2twb2ludHNSZXNwb25zZSI3yvMYHwoDR0VUEhgvYWRtaW4vYXVkaXQtY2hlY2twb2ludHPS8xgQCAISCnJlYWQ6YXVkaXQoARK1AQoVQ3JlYXRlQXVkaXRDaGVja3BvaW50Ei0uc3ZjLmlkZW50aXR5LnYxLkNyZWF0ZUF1ZGl0Q2hlY2twb2ludFJlcXVlc3QaLi5zdmMuaWRlbnRpdHkudjEuQ3JlYXRlQXVkaXRDaGVja3BvaW50UmVzcG9uc2UiPcrzGCMKBFBPU1QSGC9hZG1pbi9hdWRpdC1jaGVja3BvaW50cxoBKtLzGBIIAhIOYWRtaW46cGxhdGZvcm0SoQEKEFZlcmlmeUF1ZGl0VHJhaWwSKC5zdmMuaWRlbnRpdHkudjEuVmVyaWZ5QXVkaXRUcmFpbFJlcXVlc3QaKS5zdmMuaWRlbnRpdHkudjEuVmVyaWZ5QXVkaXRUcmFpbFJlc3BvbnNlIjjK8xggCgNHRVQSGS9hZG1pbi9hdWRpdC10cmFpbC92ZXJpZnnS8xgQCAISCnJlYWQ6YXVkaXQoAWIGcHJvdG8z", [file_google_protobuf_struct, file_google_protobuf_timestamp, file_svc_api_v1_annotations, file_svc_events_v1_events]);
var OidcSyncResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 2);
var IdpSyncGroupsResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 4);
var MembershipSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 5);
var ListMembershipsOfResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 7);
var WhoAmIResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 9);
var LoginResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 11);
var IssueLeaseResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 14);
var LicensePublicKeySchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 16);
var GetLicensePublicKeyResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 17);
var RevokeDeploymentLeasesResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 19);
var IdpGroupMappingSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 20);
var ListIdpGroupMappingsResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 22);
var DeleteIdpGroupMappingResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 25);
var ListMcpToolsResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 30);
var InvokeMcpToolResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 31);
var AuditEventSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 32);
var ListAuditEventsResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 34);
var AuditCheckpointSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 35);
var ListAuditCheckpointsResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 38);
var CreateAuditCheckpointResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 40);
var VerifyAuditTrailResponseSchema = /* @__PURE__ */ messageDesc(file_svc_identity_v1_identity, 42);
var ConnectionKindSchema = /* @__PURE__ */ enumDesc(file_svc_identity_v1_identity, 0);
var ConnectionKind = /* @__PURE__ */ tsEnum(ConnectionKindSchema);
var IdentityService = /* @__PURE__ */ serviceDesc(file_svc_identity_v1_identity, 0);
var LicenseService = /* @__PURE__ */ serviceDesc(file_svc_identity_v1_identity, 1);
var TenancyService = /* @__PURE__ */ serviceDesc(file_svc_identity_v1_identity, 2);
var McpService = /* @__PURE__ */ serviceDesc(file_svc_identity_v1_identity, 3);
var AuditService = /* @__PURE__ */ serviceDesc(file_svc_identity_v1_identity, 4);

// lib/src/server/resilient-transport.ts
function resilientTransport(inner, opts) {
  const policyOf2 = createPolicyLookup();
  const retries = opts.retries ?? 2;
  const backoffMs = opts.backoffMs ?? 100;
  const budget = (method, timeoutMs) => {
    const left = remainingMs();
    const ms = Math.min(
      timeoutMs ?? opts.defaultTimeoutMs ?? callDeadlineMs(method),
      left ?? Infinity
    );
    if (ms <= 0)
      throw new ConnectError(
        "the request this call serves has no time left; the call was not made",
        Code.DeadlineExceeded
      );
    return ms;
  };
  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const end = Date.now() + budget(method, timeoutMs);
      const idempotent = policyOf2(method).readOnly;
      let previous;
      for (let attempt = 0; ; attempt++) {
        try {
          return await inner.unary(method, signal, end - Date.now(), header, input, contextValues);
        } catch (err) {
          if (previous !== void 0 && ConnectError.from(err).code === Code.DeadlineExceeded)
            throw previous;
          const delay = backoffMs * 2 ** attempt * (0.5 + Math.random() / 2);
          const again = idempotent && attempt < retries && !signal?.aborted && peerUnavailable(ConnectError.from(err)) && Date.now() + delay < end;
          if (!again) throw err;
          previous = err;
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    },
    stream(method, signal, timeoutMs, header, input, contextValues) {
      return inner.stream(method, signal, budget(method, timeoutMs), header, input, contextValues);
    }
  };
}
function peerUnavailable(err) {
  if (err.code === Code.Unavailable) return true;
  return err.code === Code.Aborted && err.findDetails(ErrorDetailSchema).length === 0;
}

// lib/src/server/peer-client.ts
function peerClient(service, url, caller, config) {
  if (!url) return { missing: "url" };
  const asCaller = callerCredentials(serviceOfTypeName(service.typeName), caller, config);
  if (!asCaller) return { missing: "credentials", url };
  return {
    client: createClient(
      service,
      // A call its caller gives no deadline gets its kind's (lib/src/deadline/call-deadlines.ts).
      resilientTransport(createGrpcTransport({ baseUrl: url, interceptors: [asCaller] }), {})
    ),
    url
  };
}
function callerCredentials(callee, caller, config) {
  if (config.auth.provider === "local")
    return (next) => (req) => {
      req.header.set(LOCAL_USER_HEADER, caller);
      return next(req);
    };
  const { clientId, clientSecret } = config.serviceIdentity;
  if (!clientId || !clientSecret || !config.auth.issuer) return void 0;
  const tokens = serviceTokens({
    issuer: config.auth.issuer,
    clientId,
    clientSecret,
    timeoutMs: config.timeouts.dbMs
  });
  return (next) => async (req) => {
    req.header.set("authorization", `Bearer ${await tokens.tokenFor(callee)}`);
    return next(req);
  };
}

// lib/src/server/membership-over-network.ts
var MEMBER_CACHE_MS = 3e4;
var NON_MEMBER_CACHE_MS = 2e3;
function membershipOverNetwork(platform, caller, config, log) {
  const peer = peerClient(IdentityService, config.serviceUrls.identity, caller, config);
  if (!peer.client) {
    log.warn(
      { missing: peer.missing },
      "membership rows cannot be asked of the identity service (SVC_IDENTITY_URL, SVC_SERVICE_CLIENT_*): callers that need them are refused 503 membership_unverifiable"
    );
    return;
  }
  const identity = peer.client;
  const timeoutMs = MEMBERSHIP_CHECK_MS;
  platform.useMembershipLookup(
    createMembershipLookup({
      countOf: async (subject) => (await identity.listMembershipsOf({ subject }, { timeoutMs })).memberships.length,
      ttlMs: MEMBER_CACHE_MS,
      negativeTtlMs: NON_MEMBER_CACHE_MS,
      timeoutMs
    })
  );
}

// lib/src/server/run-standalone.ts
async function runStandalone(name, build) {
  const config = loadConfig();
  assertListenAllowed(config.host, config.auth.provider);
  const platform = await openPlatform(config, name);
  if (name !== "identity") membershipOverNetwork(platform, name, config, platform.log);
  const module = await build(platform);
  await module.start();
  const server = await startRpcServer({
    routes: (router) => {
      module.routes(router);
      healthRoutes(
        module.services.map((s) => s.typeName),
        platform.ready
      )(router);
    },
    interceptors: platform.interceptors,
    host: config.host,
    port: config.grpcPort,
    auth: config.auth.provider
  });
  platform.log.info(
    { url: server.url, services: module.services.map((s) => s.typeName) },
    `${name} service listening (gRPC, Connect, gRPC-web)`
  );
  closeOnSignals(platform.log, [server.close, module.stop, platform.close]);
}

// lib/src/server/in-process-transport.ts
var callContextKey = createContextKey(void 0, {
  description: "in-process handler context"
});
var PROTOCOL = "in-process";
var BASE_URL = "https://in-process";
function createInProcessTransport(routes, opts) {
  const share = opts.messages === "share";
  const served = collectImplementations(routes, opts.interceptors);
  const chains = /* @__PURE__ */ new Map();
  const chainOf = (method) => {
    let chain = chains.get(method);
    if (chain) return chain;
    const entry = served.get(method);
    if (!entry || entry.spec.kind !== "unary") return void 0;
    chain = buildChain(entry.spec.impl, method, entry.interceptors);
    chains.set(method, chain);
    return chain;
  };
  let streaming;
  return {
    async unary(method, signal, timeoutMs, header, input) {
      const chain = chainOf(method);
      if (!chain)
        throw new ConnectError(
          `${method.parent.typeName}/${method.name} is not served in this process`,
          Code.Unimplemented
        );
      const message2 = share ? create(method.input, input) : clone(method.input, create(method.input, input));
      const res = await runCall(chain, method, message2, signal, timeoutMs, header);
      return share ? res : { ...res, message: clone(method.output, res.message) };
    },
    stream(method, signal, timeoutMs, header, input) {
      streaming ??= createRouterTransport(routes, {
        router: { interceptors: opts.interceptors }
      });
      return streaming.stream(method, signal, timeoutMs, header, input);
    }
  };
}
function collectImplementations(routes, interceptors) {
  const served = /* @__PURE__ */ new Map();
  const router = {
    handlers: [],
    service(service, impl, options) {
      const spec = createServiceImplSpec(service, impl);
      for (const m of Object.values(spec.methods))
        served.set(m.method, { spec: m, interceptors: options?.interceptors ?? interceptors });
      return router;
    },
    rpc(method, impl, options) {
      served.set(method, {
        spec: createMethodImplSpec(method, impl),
        interceptors: options?.interceptors ?? interceptors
      });
      return router;
    }
  };
  routes(router);
  return served;
}
function buildChain(impl, method, interceptors) {
  const innermost = async (req) => {
    const ctx = req.contextValues.get(callContextKey);
    const handlerCtx = {
      ...ctx,
      service: req.service,
      requestHeader: req.header,
      signal: req.signal,
      values: req.contextValues
    };
    const out = await impl(req.message, handlerCtx);
    return {
      stream: false,
      service: method.parent,
      method: req.method,
      header: ctx.responseHeader,
      trailer: ctx.responseTrailer,
      message: create(req.method.output, out)
    };
  };
  let chain = innermost;
  for (let i = interceptors.length - 1; i >= 0; i--)
    chain = interceptors[i](chain);
  return chain;
}
async function runCall(chain, method, message2, signal, timeoutMs, header) {
  const deadlineMs = timeoutMs !== void 0 && timeoutMs > 0 ? timeoutMs : void 0;
  const deadline2 = deadlineMs !== void 0 ? Date.now() + deadlineMs : void 0;
  const controller = new AbortController();
  const values = createContextValues();
  const ctx = {
    method,
    service: method.parent,
    signal: controller.signal,
    timeoutMs: () => deadline2 === void 0 ? void 0 : deadline2 - Date.now(),
    requestMethod: "POST",
    requestHeader: new Headers(header),
    responseHeader: new Headers(),
    responseTrailer: new Headers(),
    protocolName: PROTOCOL,
    values,
    url: `${BASE_URL}/${method.parent.typeName}/${method.name}`
  };
  values.set(callContextKey, ctx);
  let timer;
  let onCallerAbort;
  const stopped = new Promise((_, reject) => {
    const stop = (reason) => {
      controller.abort(reason);
      reject(reason);
    };
    if (deadlineMs !== void 0) {
      timer = setTimeout(
        () => stop(new ConnectError("the operation timed out", Code.DeadlineExceeded)),
        deadlineMs
      );
    }
    if (signal) {
      onCallerAbort = () => stop(ConnectError.from(signal.reason, Code.Canceled));
      if (signal.aborted) onCallerAbort();
      else signal.addEventListener("abort", onCallerAbort, { once: true });
    }
  });
  const call = chain({
    stream: false,
    service: method.parent,
    method,
    requestMethod: "POST",
    url: ctx.url,
    signal: controller.signal,
    header: ctx.requestHeader,
    contextValues: values,
    message: message2
  }).catch((err) => {
    throw asWireError(err, ctx);
  });
  try {
    if (timer === void 0 && onCallerAbort === void 0) return await call;
    call.catch(() => void 0);
    return await Promise.race([call, stopped]);
  } finally {
    clearTimeout(timer);
    if (onCallerAbort) signal.removeEventListener("abort", onCallerAbort);
  }
}
function asWireError(err, ctx) {
  const known = err instanceof ConnectError;
  const metadata = new Headers(ctx.responseHeader);
  if (known) err.metadata.forEach((value, key) => metadata.set(key, value));
  ctx.responseTrailer.forEach((value, key) => metadata.append(key, value));
  if (!known) return new ConnectError("internal error", Code.Internal, metadata);
  const out = new ConnectError(err.rawMessage, err.code, metadata);
  out.details.push(...err.details);
  return out;
}

// lib/src/server/lazy-transport.ts
function lazyTransport(make) {
  let transport;
  const made = () => transport ??= make();
  return {
    unary: (...args) => made().unary(...args),
    stream: (...args) => made().stream(...args)
  };
}

export {
  timestampFromDate,
  timestampDate,
  timestampFromMs,
  timestampMs,
  Code,
  ConnectError,
  createClient,
  createContextValues,
  createRouterTransport,
  errors_exports,
  jwtVerify,
  SignJWT,
  ErrorDetailSchema,
  isStoreOutage,
  svcError,
  errorDetailOf,
  invalidField,
  notBuiltCapability,
  completeService,
  HealthCheckResponse_ServingStatus,
  Health,
  LIVENESS_SERVICE,
  healthRoutes,
  timeoutFromHeaders,
  serverDeadlineInterceptor,
  remainingMs,
  withRequestDeadline,
  assertListenAllowed,
  isLoopbackHost,
  startRpcServer,
  closeOnSignals,
  createMemoryStore,
  requestIdKey,
  REQUEST_ID_HEADER,
  requestIdFrom,
  tracer,
  injectTraceHeaders,
  currentTraceparent,
  contextFromTraceparent,
  extractTraceContext,
  principalKey,
  bearerRejectionKey,
  principalOf,
  hasScope,
  sameSubject,
  bearerOf,
  assertMembershipFresh,
  createMembershipLookup,
  providerEndpoints,
  validateMessage,
  allowedEnumWireValues,
  enumValueWireName,
  AUDIT_SUBJECT,
  auditActorOf,
  currentTraceId,
  auditOriginOf,
  recordAudit,
  canonicalBytes,
  GENESIS_HASH,
  auditHash,
  signAsync,
  verifyAsync,
  toBase64Url,
  fromBase64Url,
  signCheckpoint,
  checkpointRefusal,
  verifyTrail,
  openNatsCheckpointLog,
  leasePublicKey,
  publicKeysFromPem,
  LEASE_FORMAT,
  leaseTime,
  authSettingsFrom,
  standardInterceptors,
  internalInterceptors,
  openPlatform,
  OidcSyncResponseSchema,
  IdpSyncGroupsResponseSchema,
  MembershipSchema,
  ListMembershipsOfResponseSchema,
  WhoAmIResponseSchema,
  LoginResponseSchema,
  IssueLeaseResponseSchema,
  LicensePublicKeySchema,
  GetLicensePublicKeyResponseSchema,
  RevokeDeploymentLeasesResponseSchema,
  IdpGroupMappingSchema,
  ListIdpGroupMappingsResponseSchema,
  DeleteIdpGroupMappingResponseSchema,
  ListMcpToolsResponseSchema,
  InvokeMcpToolResponseSchema,
  AuditEventSchema,
  ListAuditEventsResponseSchema,
  AuditCheckpointSchema,
  ListAuditCheckpointsResponseSchema,
  CreateAuditCheckpointResponseSchema,
  VerifyAuditTrailResponseSchema,
  ConnectionKind,
  IdentityService,
  LicenseService,
  TenancyService,
  McpService,
  AuditService,
  resilientTransport,
  peerClient,
  runStandalone,
  createInProcessTransport,
  lazyTransport
};
/*! Bundled license information:

@noble/ed25519/index.js:
  (*! noble-ed25519 - MIT License (c) 2019 Paul Miller (paulmillr.com) *)
*/
//# sourceMappingURL=chunk-DWVGW34L.js.map

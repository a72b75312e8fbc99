import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  BotsService,
  ModelArtifactSchema,
  ModelTensorInfoSchema,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { principalOf } from "@svc/lib/auth";
import { Code, svcError } from "@svc/lib/errors";
import { inspectModel, ModelFailure, modelLimitsFromEnv } from "../models/model-host.js";
import type { TensorInfo } from "../models/model-wire.js";
import { modelDigest } from "../models/run-models.js";
import { findModel, storeModel, type StoredModel } from "../store/models.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";

/**
 * POST /models: an ONNX file is loaded by the runtime, in a process of its own under the model
 * limits, before anything is stored; what it declares (inputs, outputs) is kept with it under
 * the SHA-256 of its bytes.
 */
export function createModelHandlers(
  db: Kysely<BotsDatabase>,
): Pick<ServiceImpl<typeof BotsService>, "uploadModel"> {
  return {
    async uploadModel(req, ctx) {
      const limits = modelLimitsFromEnv();
      const bytes = req.onnx;
      if (bytes.byteLength === 0)
        throw svcError(
          Code.InvalidArgument,
          "invalid_argument",
          "onnx is required: the ONNX file's bytes (base64 in JSON)",
          {
            field: "onnx",
          },
        );
      if (bytes.byteLength > limits.maxBytes)
        throw svcError(
          Code.InvalidArgument,
          "model_too_large",
          `the model is ${bytes.byteLength} bytes; a model may be at most ${limits.maxBytes} bytes (SVC_MODEL_MAX_BYTES)`,
          { field: "onnx", limit_bytes: limits.maxBytes, size_bytes: bytes.byteLength },
        );
      const digest = modelDigest(bytes);
      const known = await findModel(db, digest);
      if (known) return toArtifact(known);
      let declared: { inputs: TensorInfo[]; outputs: TensorInfo[] };
      try {
        declared = await inspectModel(bytes, limits);
      } catch (err) {
        if (!(err instanceof ModelFailure)) throw err;
        throw svcError(
          Code.InvalidArgument,
          "invalid_model",
          `the file is not a model ONNX Runtime can run: ${err.message}`,
          { field: "onnx" },
        );
      }
      const stored = await storeModel(db, {
        digest,
        onnx: bytes,
        ...declared,
        createdBy: principalOf(ctx).sub,
      });
      return toArtifact(stored);
    },
  };
}

function toArtifact(m: StoredModel) {
  const info = (t: TensorInfo) =>
    create(ModelTensorInfoSchema, { name: t.name, type: t.type, dims: t.dims.map(String) });
  return create(ModelArtifactSchema, {
    digest: m.digest,
    sizeBytes: BigInt(m.sizeBytes),
    inputs: m.inputs.map(info),
    outputs: m.outputs.map(info),
    createdBy: m.createdBy,
    createdAt: timestampFromDate(m.createdAt),
  });
}

import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { contextOf } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { objectFields, rowsTable } from "../render.js";
import { declareRoutes } from "../routes/declare.js";

interface Model {
  digest: string;
  inputs?: unknown[];
  outputs?: unknown[];
  [key: string]: unknown;
}

export function registerModels(program: Command, io: Io): void {
  const models = program
    .command("models")
    .description("upload an ONNX model for a model-driven strategy");
  const upload = models
    .command("upload")
    .description(
      "upload an ONNX file; the platform loads it and answers its digest, inputs and outputs",
    )
    .argument("<file>", "the .onnx file")
    .addHelpText("after", "\nExample:\n  svc models upload policy.onnx\n")
    .action(async (file: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch (e) {
        throw new CliExit(2, `cannot read ${file}: ${(e as Error).message}`);
      }
      const m = await ctx.api.post<Model>("/models", { onnx: bytes.toString("base64") });
      ctx.show(m, () => {
        const head = objectFields(m, ["digest", "size_bytes", "created_by", "created_at"]);
        const tensors = [
          ...(m.inputs ?? []).map((t) => ({ io: "input", ...(t as object) })),
          ...(m.outputs ?? []).map((t) => ({ io: "output", ...(t as object) })),
        ];
        return tensors.length ? `${head}\n${rowsTable(tensors)}` : head;
      });
    });
  declareRoutes(upload, "POST /models");
}

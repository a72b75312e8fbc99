import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getOption, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { http, type HttpRule } from "@svc/gen/svc/api/v1/annotations_pb.js";
import { comments } from "@svc/gen/svc/docs_comments.js";
import { describe, expect, it } from "vitest";

// The OpenAPI document's descriptions are the proto comments (issue 12, point 6): an RPC or a
// field without one is a blank in the API reference. This checks the contract itself, so a new
// uncommented RPC or field fails here, before anyone reads /openapi.json.

const GEN = fileURLToPath(new URL("../gen/src/svc/", import.meta.url));

/** Every generated file descriptor under gen/src/svc, so a new proto file is covered too. */
async function protoFiles(): Promise<DescFile[]> {
  const modules = readdirSync(GEN, { recursive: true, encoding: "utf8" })
    .filter((p) => p.endsWith("_pb.js"))
    .sort();
  const files: DescFile[] = [];
  for (const p of modules) {
    const mod = (await import(join(GEN, p))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod))
      if (name.startsWith("file_")) files.push(value as DescFile);
  }
  return files;
}

/** Every RPC with a REST route and every field a caller of one sends or reads, without a comment. */
function missingComments(files: DescFile[]): { rpcs: string[]; fields: string[] } {
  const rpcs: string[] = [];
  const fields = new Set<string>();
  const seen = new Set<string>();
  const walk = (m: DescMessage) => {
    if (seen.has(m.typeName) || !m.typeName.startsWith("svc.")) return;
    seen.add(m.typeName);
    for (const f of m.fields) {
      const name = `${m.typeName}.${f.name}`;
      if (!comments[name]) fields.add(name);
      if (f.message) walk(f.message);
    }
  };
  for (const file of files) {
    for (const service of file.services) {
      for (const method of service.methods) {
        const rule = getOption(method, http) as HttpRule | undefined;
        if (!rule?.path) continue;
        walk(method.input);
        walk(method.output);
        const name = `${service.typeName}.${method.name}`;
        if (!comments[name]) rpcs.push(name);
      }
    }
  }
  return { rpcs, fields: [...fields].sort() };
}

describe("the proto contract's comments", () => {
  it("reach every routed RPC and every field a caller of one sends or reads", async () => {
    const files = await protoFiles();
    expect(files.map((f) => f.name)).toContain("svc/promotion/v1/promotion");
    const missing = missingComments(files);
    expect(
      missing,
      `without a leading comment: ${missing.rpcs.length} RPCs, ${missing.fields.length} fields`,
    ).toEqual({ rpcs: [], fields: [] });
  });
});

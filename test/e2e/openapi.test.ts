import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

// ajv 8 (JSON Schema 2020-12, the dialect of OpenAPI 3.1) is a dependency of the compliance
// service; the root's hoisted ajv is eslint's ajv 6, which knows only draft-07.
type Validate = ((data: unknown) => boolean) & { errors?: unknown };
const { Ajv2020 } = createRequire(
  new URL("../../services/compliance/package.json", import.meta.url),
)("ajv/dist/2020") as {
  Ajv2020: new (opts: object) => {
    addSchema(schema: object): unknown;
    compile(schema: object): Validate;
    errorsText(errors: unknown): string;
  };
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ["get", "post", "put", "patch", "delete"];

function operations(doc: Json): Array<{ method: string; template: string; op: Json }> {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([template, ops]) =>
    METHODS.filter((m) => ops[m]).map((method) => ({ method, template, op: ops[method] })),
  );
}

/** The body schema of an operation, its $ref followed (the properties a caller sends). */
function bodySchema(doc: Json, op: Json): Json | undefined {
  const schema = op.requestBody?.content?.["application/json"]?.schema;
  if (!schema?.$ref) return schema;
  return doc.components.schemas[String(schema.$ref).replace("#/components/schemas/", "")];
}

/** The smallest value of a schema that has every required field (strings "x", numbers 1). */
function minimal(doc: Json, schema: Json): unknown {
  if (schema.$ref) return minimal(doc, doc.components.schemas[schema.$ref.split("/").pop()]);
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "string") return schema.format === "date-time" ? new Date().toISOString() : "x";
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  if (type === "array") return [];
  const required: string[] = schema.required ?? [];
  return Object.fromEntries(required.map((k) => [k, minimal(doc, schema.properties[k])]));
}

describe("the OpenAPI document", () => {
  let p: RunningPlatform;
  let doc: Json;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
    doc = (await call(p.url, "GET", "/openapi.json")).body;
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  it("describes operations with the RPC's proto comment and its auth policy", () => {
    const results = doc.paths["/bots/{bot_ref}/deployments/{deployment_id}/results"].get;
    expect(results.summary).toBe("Get Backtest Results");
    expect(results.description).toContain(
      "A finished backtest's figures, equity curve, drawdown and daily returns.",
    );
    expect(results.description).toContain(
      "Needs a user's access token with the scopes `read:bots`",
    );
    expect(doc.paths["/bots/{bot_ref}/halt"].post.description).toContain(
      "a fresh MFA sign-in (step-up)",
    );
    for (const { method, template, op } of operations(doc))
      expect(op.description, `${method} ${template}`).toMatch(/\S/);
  });

  it("describes fields with their proto comments, beside a $ref too, and lists enum values", () => {
    const spec = doc.components.schemas["svc.bots.v1.BotSpec"];
    expect(spec.description).toBe(
      "Everything that defines a bot. A change of any field makes a new immutable version.",
    );
    expect(spec.properties.fleet.description).toBe(
      "The fleet the bot belongs to, which a fleet-scope kill switch halts.",
    );
    expect(spec.properties.risk).toEqual({
      $ref: "#/components/schemas/svc.bots.v1.RiskLimits",
      description:
        "Pre-trade risk limits, checked on every order of a backtest, paper or live session.",
    });
    const scope = doc.components.schemas["svc.killswitch.v1.KillSwitchSpec"].properties.scope;
    expect(scope.enum).toContain("fleet");
    expect(scope.description).toMatch(/- `fleet`/);
    const target = doc.paths["/kill-switches/{name}"].put.requestBody.content["application/json"];
    expect(target.schema.$ref).toBe("#/components/schemas/svc.killswitch.v1.KillSwitchSpec");
  });

  it("leaves path parameters out of every request body schema", () => {
    let bodies = 0;
    for (const { method, template, op } of operations(doc)) {
      const schema = bodySchema(doc, op);
      if (!schema) continue;
      bodies++;
      const inPath = (op.parameters as Json[]).filter((x) => x.in === "path").map((x) => x.name);
      for (const name of inPath) {
        expect(schema.properties ?? {}, `${method} ${template} body`).not.toHaveProperty(name);
        expect(schema.required ?? [], `${method} ${template} body`).not.toContain(name);
      }
    }
    expect(bodies).toBeGreaterThan(20);
    const backtest = doc.paths["/bots/{bot_ref}/backtest"].post;
    expect(Object.keys(bodySchema(doc, backtest)!.properties)).toContain("data_source");
  });

  it("marks exactly the routes that answer 501, with the capability they name", async () => {
    // Since research chat (issue 14) every route is built; one marked later must answer 501.
    const marked = operations(doc).filter(({ op }) => op["x-svc-not-built"]);
    for (const { method, template, op } of marked) {
      expect(op.summary).toMatch(/\(not built\)$/);
      expect(op.description).toContain("Not built yet: answers 501");
      const path = template.replace(/\{[a-z_]+\}/g, "x");
      // A body the input rules accept, so the call reaches the RPC rather than a 400.
      const schema = bodySchema(doc, op);
      const res = await call(p.url, method.toUpperCase(), path, schema && minimal(doc, schema));
      expect(res.status, `${method} ${template}: ${res.text}`).toBe(501);
      expect(res.body.error.details.capability).toBe(op["x-svc-not-built"]);
    }
    const built = operations(doc).find(({ template }) => template === "/bots/{bot_ref}/backtest");
    expect(built!.op["x-svc-not-built"]).toBeUndefined();
  });

  it("gives examples from the README demo that fit their schemas and that the API accepts", async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: "doc", components: doc.components });
    const examples: Record<string, { template: string; method: string; example: Json }> = {};
    for (const { method, template, op } of operations(doc)) {
      const media = op.requestBody?.content?.["application/json"];
      if (media?.example === undefined) continue;
      const schema = JSON.parse(
        JSON.stringify(media.schema).replaceAll('"#/components/', '"doc#/components/'),
      );
      const validate = ajv.compile(schema);
      expect(validate(media.example), `${op.operationId}: ${ajv.errorsText(validate.errors)}`).toBe(
        true,
      );
      examples[op.operationId] = { template, method, example: media.example };
    }
    expect(Object.keys(examples).sort()).toEqual([
      "BotsService_BacktestBot",
      "BotsService_CreateBot",
      "BotsService_StartPaper",
      "KillSwitchService_ApplyKillSwitch",
      "PromotionService_CreatePromotionRequest",
    ]);
    // A schema that refuses a wrong body, so a passing example means something.
    const create = ajv.compile(
      JSON.parse(
        JSON.stringify(
          doc.paths["/bots"].post.requestBody.content["application/json"].schema,
        ).replaceAll('"#/components/', '"doc#/components/'),
      ),
    );
    expect(create({ ...examples.BotsService_CreateBot!.example, kind: "tradng" })).toBe(false);

    // The demo, from the examples: create, backtest, promote, approve as a second user, paper.
    const send = (id: string, path: string, body: Json, headers: Record<string, string> = {}) =>
      call(p.url, examples[id]!.method.toUpperCase(), path, body, headers);
    const created = await send(
      "BotsService_CreateBot",
      "/bots",
      examples.BotsService_CreateBot!.example,
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body.slug).toBe("demo");
    const backtest = await send(
      "BotsService_BacktestBot",
      "/bots/demo/backtest",
      examples.BotsService_BacktestBot!.example,
    );
    expect(backtest.status, backtest.text).toBe(202);
    await eventually(
      "the example backtest succeeds",
      async () => (await call(p.url, "GET", "/bots/demo/deployments")).body,
      (b) => b.items?.[0]?.status === "success",
      30_000,
    );
    const promotion = examples.PromotionService_CreatePromotionRequest!.example;
    // The example names the Demo bot's real spec hash, so it works pasted after the bot example.
    expect(promotion.artifact.version_hash).toBe(created.body.spec_hash);
    const requested = await send(
      "PromotionService_CreatePromotionRequest",
      "/promotion/requests",
      promotion,
      {
        "x-svc-local-user": "alice",
      },
    );
    expect(requested.status, requested.text).toBe(201);
    const approved = await call(
      p.url,
      "POST",
      "/promotion/requests/demo-1/approve",
      {},
      {
        "x-svc-local-user": "bob",
      },
    );
    expect(approved.status, approved.text).toBe(200);
    const paper = await send("BotsService_StartPaper", "/bots/demo/paper/start", {
      ...examples.BotsService_StartPaper!.example,
      approved_promotion: approved.body.approved_promotion,
    });
    expect(paper.status, paper.text).toBe(202);
    const engaged = await send(
      "KillSwitchService_ApplyKillSwitch",
      "/kill-switches/drill",
      examples.KillSwitchService_ApplyKillSwitch!.example,
    );
    expect(engaged.status, engaged.text).toBe(200);
    expect(engaged.body.status.engaged).toBe(true);
  }, 60_000);

  // Last: these calls halt and engage switches on this platform.
  it("leaves unmarked only routes that are built (none answers 501)", async () => {
    for (const { method, template, op } of operations(doc)) {
      if (op["x-svc-not-built"]) continue;
      const path = template.replace(/\{[a-z_]+\}/g, "x");
      const schema = bodySchema(doc, op);
      const res = await call(p.url, method.toUpperCase(), path, schema && minimal(doc, schema));
      expect(res.status, `${method} ${template}: ${res.text}`).not.toBe(501);
    }
  }, 60_000);

  it("is an OpenAPI 3.1 document in structure", () => {
    expect(doc.openapi).toBe("3.1.0");
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { method, template, op } of operations(doc)) {
      const inTemplate = [...template.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]).sort();
      const declared = (op.parameters as Json[])
        .filter((x) => x.in === "path")
        .map((x) => x.name)
        .sort();
      expect(declared, `${method} ${template}`).toEqual(inTemplate);
      expect(Object.keys(op.responses).length, `${method} ${template}`).toBeGreaterThan(0);
    }
    // Every $ref points at a schema the document has.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)];
    for (const [, name] of refs) expect(doc.components.schemas, name).toHaveProperty(name!);
  });
});

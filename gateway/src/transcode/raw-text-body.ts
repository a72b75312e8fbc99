import { ScalarType, type JsonObject } from "@bufbuild/protobuf";
import type { FastifyInstance } from "fastify";
import type { RouteBinding } from "../routes/route-table.js";
import { WireInputError, wireToProtoJson } from "./wire-json.js";

/** Text media types a route may take raw (a file as it is, rather than a string inside JSON). */
const RAW_TEXT_TYPES = ["csv"] as const;

/** A raw `text/<subtype>` body, as the content-type parser hands it on. */
export class RawTextBody {
  constructor(
    readonly subtype: string,
    readonly text: string,
  ) {}
}

/**
 * Lets a route take a raw `text/csv` body, generically: the text fills the input's string field
 * named after the subtype (`csv`), the query string carries the other fields, and the path its
 * own. A route whose input has no such field refuses the body as 415. Such bodies may be up to
 * `limitBytes` (a file upload's bound), JSON bodies keep the gateway's own limit.
 */
export function registerRawTextBodies(app: FastifyInstance, limitBytes: number): void {
  for (const subtype of RAW_TEXT_TYPES)
    app.addContentTypeParser(
      `text/${subtype}`,
      { parseAs: "string", bodyLimit: limitBytes },
      (_req, body, done) => done(null, new RawTextBody(subtype, body as string)),
    );
}

/** A raw text body sent to a route that takes none: 415. */
export class UnsupportedTextBody extends Error {
  readonly statusCode = 415;
}

/** The largest body a request of this content type may send. */
export function bodyLimitFor(contentType: string | undefined, json: number, text: number): number {
  return RAW_TEXT_TYPES.some((t) => (contentType ?? "").toLowerCase().startsWith(`text/${t}`))
    ? text
    : json;
}

/** The RPC input, in protobuf JSON, of a call whose body is raw text. */
export function rawTextInput(
  binding: RouteBinding,
  params: Record<string, string>,
  query: Record<string, string | string[]>,
  body: RawTextBody,
): JsonObject {
  const { method, path } = binding;
  const field = method.input.fields.find((f) => f.name === body.subtype);
  if (!binding.rule.body || field?.fieldKind !== "scalar" || field.scalar !== ScalarType.STRING)
    throw new UnsupportedTextBody(
      `${binding.httpMethod} ${path.template} takes no text/${body.subtype} body; send JSON`,
    );
  for (const key of Object.keys(query))
    if (key === field.name || path.params.includes(key))
      throw new WireInputError(
        `query parameter ${key} is not allowed here; it is given by the ${key === field.name ? "body" : "path"}`,
        key,
      );
  return {
    ...wireToProtoJson(method.input, query, "", "query"),
    [field.jsonName]: body.text,
    ...wireToProtoJson(method.input, params, "", "query"),
  };
}

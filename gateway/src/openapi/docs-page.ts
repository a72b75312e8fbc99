import type { FastifyInstance } from "fastify";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";

/**
 * Serves a page at /docs that renders the generated OpenAPI document (Swagger UI, its assets
 * served locally: the page works on an air-gapped install).
 */
export async function registerDocs(
  app: FastifyInstance,
  document: Record<string, unknown>,
): Promise<void> {
  await app.register(swagger, { mode: "static", specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: "/docs" });
}

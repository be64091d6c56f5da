import { openApiDocument } from '~/models/api/openapi.server';

/** The OpenAPI 3.1 document, generated from the endpoints' zod schemas (ADR 076). Public: it describes, it holds no data. */
export function loader() {
  return new Response(JSON.stringify(openApiDocument()), {
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' },
  });
}

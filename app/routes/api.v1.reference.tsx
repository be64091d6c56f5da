import { apiReferenceHtml } from '~/models/api/reference.server';

/** The API reference: plain server-rendered HTML from the OpenAPI document, no script at all (ADR 076). */
export function loader() {
  return new Response(apiReferenceHtml(), { headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'public, max-age=300' } });
}

/** Any other address under /api/v1: the API's own 404, in its error shape (not the app's HTML page). */
const notFound = () =>
  new Response(JSON.stringify({ error: { code: 'not_found', message: 'No such API endpoint; see /api/v1/openapi.json' } }), {
    status: 404,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  });

export const loader = notFound;
export const action = notFound;

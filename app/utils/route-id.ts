/** A value that can be a serial id: anything larger would make PostgreSQL fail instead of finding nothing. */
export function isRowId(n: number) {
  return Number.isInteger(n) && n > 0 && n <= 2_147_483_647;
}

/** Reads a numeric id from a route parameter: null for anything that cannot name a row (the route answers 404). */
export function parseRouteId(param: string | undefined): number | null {
  if (!param || !/^\d{1,10}$/.test(param)) return null;
  const n = Number(param);
  return isRowId(n) ? n : null;
}

/** A create-or-edit route's parameter: `new` is create mode, a row id is edit mode, anything else is a 404. */
export function readEditorParam(param: string | undefined): 'new' | number {
  if (param === 'new') return 'new';
  const id = parseRouteId(param);
  if (id === null) throw new Response('Not Found', { status: 404 });
  return id;
}

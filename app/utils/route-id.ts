/** The largest serial id (PostgreSQL's integer): ids and numbers from requests are capped here, never above. */
export const MAX_ROW_ID = 2_147_483_647;

/** A value that can be a serial id: anything larger would make PostgreSQL fail instead of finding nothing. */
export function isRowId(n: number) {
  return Number.isInteger(n) && n > 0 && n <= MAX_ROW_ID;
}

/** An id from a form field or JSON value: only plain digits (no `0x`, `1e3`, `1/2`), else null. */
export function parseRowId(value: unknown): number | null {
  if (typeof value === 'number') return isRowId(value) ? value : null;
  return typeof value === 'string' ? parseRouteId(value.trim()) : null;
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

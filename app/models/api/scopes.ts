/**
 * Developer API scopes (ADR 076), free of server code so that the settings screen can list them. A scope is
 * `area:read` or `area:write`; write includes read. Messages belong to conversations.
 */
export const API_AREAS = [
  { area: 'conversations', label: 'Conversations and messages', write: true },
  { area: 'contacts', label: 'Contacts', write: true },
  { area: 'companies', label: 'Companies', write: true },
  { area: 'tags', label: 'Tags', write: true },
  { area: 'inboxes', label: 'Inboxes', write: false },
  { area: 'users', label: 'Users', write: false },
  { area: 'workflows', label: 'Workflows', write: false },
  { area: 'webhooks', label: 'Webhooks', write: true },
] as const;

export type ApiArea = (typeof API_AREAS)[number]['area'];
export type ApiScope = `${ApiArea}:${'read' | 'write'}`;

export const API_SCOPES: ApiScope[] = API_AREAS.flatMap((a) => (a.write ? [`${a.area}:read`, `${a.area}:write`] : [`${a.area}:read`]) as ApiScope[]);

/** Whether the key's scopes allow `wanted` (write includes read). */
export function scopeAllows(scopes: readonly string[], wanted: ApiScope) {
  if (scopes.includes(wanted)) return true;
  const [area, level] = wanted.split(':');
  return level === 'read' && scopes.includes(`${area}:write`);
}

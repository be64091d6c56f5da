/**
 * Mentions in notes (ADR 034): `@name`, written by hand or picked from the autocomplete. A user answers to their
 * handle (first and last name run together, `@OliveOwner`), to `@first.last`, to their email's local part, and to
 * their first name alone when no colleague shares it.
 */

export type MentionableUser = { id: number; firstName: string; lastName: string; email: string };

const squash = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();

/** The handle the autocomplete inserts for a user. */
export function mentionHandle(u: MentionableUser) {
  const handle = `${u.firstName}${u.lastName}`.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\p{L}\p{N}]/gu, '');
  return handle || u.email.split('@')[0];
}

/** The `@words` of a text (an email address's @ does not count: it follows a letter). */
export function mentionTokens(text: string) {
  return [...text.matchAll(/(^|[^\p{L}\p{N}_.@])@([\p{L}\p{N}][\p{L}\p{N}._-]{0,60})/gu)].map((m) => m[2].replace(/[._-]+$/, ''));
}

/** The users a text mentions. */
export function findMentionedUsers(text: string, users: MentionableUser[]) {
  const tokens = mentionTokens(text);
  if (tokens.length === 0) return [];
  const found = new Set<number>();
  for (const token of tokens) {
    const t = token.toLowerCase();
    const flat = squash(token);
    const exact = users.filter(
      (u) =>
        squash(`${u.firstName}${u.lastName}`) === flat ||
        `${u.firstName}.${u.lastName}`.toLowerCase() === t ||
        u.email.split('@')[0].toLowerCase() === t,
    );
    if (exact.length) {
      for (const u of exact) found.add(u.id);
      continue;
    }
    const byFirst = users.filter((u) => squash(u.firstName) === flat);
    if (byFirst.length === 1) found.add(byFirst[0].id);
  }
  return users.filter((u) => found.has(u.id));
}

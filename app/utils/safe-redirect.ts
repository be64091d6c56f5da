/**
 * The one check for every redirect whose target comes from a request (`redirectTo` after sign-in, and any
 * later "return to" value): only a path on this same host is followed; anything else falls back.
 *
 * Browsers forgive a lot: they drop tabs and newlines inside URLs, read `\` as `/`, and treat `//host` (and
 * `/%09/host` once decoded) as another host. So the value is decoded (as often as it still changes), refused if
 * any spelling of it contains a control character, a backslash or starts with `//`, and finally resolved against
 * a placeholder origin: only a result on that origin is kept, and its normalised path is what is returned.
 */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = '/home'): string {
  if (!to || typeof to !== 'string' || to.length > 2048) return fallback;
  const spellings = [to];
  let current = to;
  for (let i = 0; i < 5; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      return fallback;
    }
    if (decoded === current) break;
    spellings.push(decoded);
    current = decoded;
  }
  for (const s of spellings) {
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f\\]/.test(s)) return fallback;
    if (!s.startsWith('/') || s.startsWith('//')) return fallback;
  }
  const base = 'http://same-host.invalid';
  let url: URL;
  try {
    url = new URL(to, base);
  } catch {
    return fallback;
  }
  if (url.origin !== base || url.pathname.startsWith('//')) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

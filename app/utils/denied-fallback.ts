/**
 * Where a page load the user may not see falls back to (section 2: "denied users fall back to the settings or list
 * route"): the settings page one level up (/settings/sms/4 → /settings/sms, /settings/sms → /settings), else the
 * area's list (/campaigns/sms → /campaigns, /customers/segment/4 → /customers: a path one level up is not always a
 * page, an area's first level always is), else Home. null when there is nowhere to fall back to (Home itself), or the
 * request is not a page load: form posts and API calls keep their 403.
 */
export function deniedFallback(request: Pick<Request, 'method' | 'url' | 'headers'>): string | null {
  if (request.method !== 'GET' && request.method !== 'HEAD') return null;
  const url = new URL(request.url);
  // Single-fetch data requests (client-side navigation) are /path.data (the index of the root: /_root.data).
  const isData = url.pathname.endsWith('.data');
  const pathname = isData ? url.pathname.replace(/\.data$/, '').replace(/^\/_root$/, '/') : url.pathname;
  if (pathname.startsWith('/api/')) return null;
  if (!isData && !(request.headers.get('accept') ?? '').includes('text/html')) return null;
  const parts = pathname.split('/').filter(Boolean);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'home')) return null;
  if (parts.length === 1) return '/home';
  return parts[0] === 'settings' ? `/${parts.slice(0, -1).join('/')}` : `/${parts[0]}`;
}

import { createCookieSessionStorage, redirect } from '@remix-run/node';
import { getConfig } from './env.server';
import { singleton } from './singleton.server';

export type Toast = { type: 'success' | 'info' | 'error'; text: string };

function storage() {
  return singleton('toast-storage', () =>
    createCookieSessionStorage({
      cookie: { name: '__parley_toast', httpOnly: true, sameSite: 'lax', path: '/', secrets: [getConfig().sessionSecret] },
    }),
  );
}

/** The one toast mechanism: a flash cookie set on a redirect and read (and cleared) by the root loader. */
export async function redirectWithToast(url: string, toast: Toast | string, init: ResponseInit = {}) {
  const t: Toast = typeof toast === 'string' ? { type: 'success', text: toast } : toast;
  const session = await storage().getSession();
  session.flash('toast', t);
  const headers = new Headers(init.headers);
  headers.append('Set-Cookie', await storage().commitSession(session));
  return redirect(url, { ...init, headers });
}

export async function readToast(request: Request) {
  const session = await storage().getSession(request.headers.get('Cookie'));
  const toast = (session.get('toast') as Toast | undefined) ?? null;
  return { toast, setCookie: toast ? await storage().commitSession(session) : null };
}

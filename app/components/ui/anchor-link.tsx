import { useLocation, useNavigate } from '@remix-run/react';
import { useEffect } from 'react';

type AnchorProps = Omit<React.AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

/**
 * A link that a page repeats many times (a row of a long list, the shell's and the side menus' entries): a plain
 * `<a>` marked for the shell's one click listener (`useAnchorNavigation`), which turns a plain click into a
 * client-side navigation, as Remix's `<Link>` does. Without JavaScript it is the same link. Each `<Link>` resolves
 * its path three times and sets up prefetch and click handlers while the server renders it; a page of a hundred
 * of them spent a tenth of its server time there (ADR 137). `to` is an absolute path of this app.
 */
export function AnchorLink({ to, ...rest }: AnchorProps) {
  return <a href={to} data-nav="" {...rest} />;
}

/**
 * A menu entry: an `AnchorLink` marked as the current page (class `active`, `aria-current="page"`) when the location
 * is `to` or below it (`end`: only `to` itself), as `<NavLink>` marks it.
 */
export function NavAnchor({ to, end = false, className, ...rest }: AnchorProps & { end?: boolean }) {
  const { pathname } = useLocation();
  const here = pathname.toLowerCase();
  const target = to.toLowerCase();
  const active = here === target || (!end && here.startsWith(target) && here.charAt(target.length) === '/');
  return <AnchorLink to={to} className={[className, active ? 'active' : ''].filter(Boolean).join(' ') || undefined} aria-current={active ? 'page' : undefined} {...rest} />;
}

/**
 * The one listener (installed by the shell) that navigates client-side for every `AnchorLink`: a plain left click
 * with no modifier key, on a link of this origin without a target or a download. Any other click (a new tab, a
 * download) is left to the browser.
 */
export function useAnchorNavigation() {
  const navigate = useNavigate();
  useEffect(() => {
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = e.target instanceof Element ? e.target.closest<HTMLAnchorElement>('a[data-nav]') : null;
      if (!a || a.origin !== window.location.origin || (a.target && a.target !== '_self') || a.hasAttribute('download')) return;
      e.preventDefault();
      navigate(a.pathname + a.search + a.hash);
    };
    document.addEventListener('click', onClick);
    return () => document.removeEventListener('click', onClick);
  }, [navigate]);
}

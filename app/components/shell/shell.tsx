import { useMatches } from '@remix-run/react';
import { AnchorLink, NavAnchor } from '~/components/ui/anchor-link';
import { useEffect, useState } from 'react';
import { MAIN_NAV } from '~/models/shell/navigation';
import type { LiveState } from './use-live';
import { Bell, Menu } from 'lucide-react';

export type ShellUser = { id: number; firstName: string; lastName: string; avatarColor: string; hasAvatar: boolean };

export function TopBar({ user, unread, live }: { user: ShellUser; unread: number; live: LiveState | null }) {
  useEscapeClosesMenus();
  return (
    <header className="topbar">
      <AnchorLink to="/home" className="logo">
        Parley
      </AnchorLink>
      {/* On phones the navigation folds into a menu (a <details>, no JavaScript); wider, CSS keeps it open. */}
      <details className="fold nav-fold">
        <summary>
          <Menu aria-hidden="true" size={18} /> Menu
        </summary>
        <nav className="mainnav" aria-label="Main">
          {MAIN_NAV.map((item) => (
            <NavAnchor key={item.to} to={item.to}>
              {item.label}
            </NavAnchor>
          ))}
        </nav>
      </details>
      <div className="spacer" />
      <ConnectivityButton state={live} />
      {/* The count is capped at 100 (ADR 110): past 99 it reads "99+". */}
      <AnchorLink to="/notifications" className="btn" aria-label={`Notifications, ${unread > 99 ? 'more than 99' : unread} unread`} data-testid="notifications-button">
        <Bell aria-hidden="true" size={18} />
        {unread > 0 ? <span className="badge">{unread > 99 ? '99+' : unread}</span> : null}
      </AnchorLink>
      <ProfileMenu user={user} />
    </header>
  );
}

/**
 * Escape closes the open `<details>` menu that holds the focus (or the last one opened) and puts the focus back on
 * its summary. Dialogs and popovers close on Escape by themselves.
 */
function useEscapeClosesMenus() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      const active = document.activeElement;
      const open = (active?.closest('details[open]') ?? [...document.querySelectorAll('details.menu[open], details.fold[open]')].pop()) as HTMLDetailsElement | undefined;
      if (!open) return;
      open.open = false;
      open.querySelector<HTMLElement>(':scope > summary')?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

/** Live-connection state; without JavaScript it says plainly that live updates need it. */
function ConnectivityButton({ state }: { state: LiveState | null }) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const s = mounted && state ? state : 'offline';
  const label = !mounted ? 'Live updates need JavaScript' : s === 'online' ? 'Connected' : s === 'connecting' ? 'Connecting…' : 'Disconnected';
  return (
    <span className="conn" data-state={s} data-testid="connectivity" title={label} role="status">
      ● {label}
    </span>
  );
}

export function Avatar({ user, size = 32 }: { user: ShellUser; size?: number }) {
  const initials = `${user.firstName[0] ?? ''}${user.lastName[0] ?? ''}`.toUpperCase();
  return (
    <span className="avatar" style={{ background: user.avatarColor, width: size, height: size }}>
      {user.hasAvatar ? <img src={`/avatars/${user.id}`} alt="" /> : initials}
    </span>
  );
}

/** Profile menu as a `<details>`: works without JavaScript. */
function ProfileMenu({ user }: { user: ShellUser }) {
  // The name holds the initials the avatar shows (a label must contain the visible text, WCAG 2.5.3).
  const initials = user.hasAvatar ? '' : ` ${user.firstName[0] ?? ''}${user.lastName[0] ?? ''}`.toUpperCase();
  return (
    <details className="menu" data-testid="profile-menu">
      <summary aria-label={`Profile menu${initials}`}>
        <Avatar user={user} />
      </summary>
      <div className="menu-items">
        <AnchorLink to="/settings/my-profile">My Profile</AnchorLink>
        <AnchorLink to="/help-center">Help Center</AnchorLink>
        <AnchorLink to="/getting-started">Getting Started</AnchorLink>
        <AnchorLink to="/settings">Settings</AnchorLink>
        <AnchorLink to="/settings/my-plan">My Plan</AnchorLink>
        <AnchorLink to="/logout">Logout</AnchorLink>
      </div>
    </details>
  );
}

type Crumb = { label: string; to: string };
type CrumbHandle = { breadcrumb?: string | ((data: unknown) => string | null) };

/** The breadcrumb, built from the matched routes' `handle.breadcrumb`. */
export function Breadcrumb() {
  const matches = useMatches();
  const crumbs: Crumb[] = [];
  for (const m of matches) {
    const handle = m.handle as CrumbHandle | undefined;
    if (!handle?.breadcrumb) continue;
    const label = typeof handle.breadcrumb === 'function' ? handle.breadcrumb(m.data) : handle.breadcrumb;
    if (label) crumbs.push({ label, to: m.pathname });
  }
  return (
    <nav aria-label="Breadcrumb">
      <ol className="breadcrumb">
        {crumbs.map((c, i) => (
          <li key={c.to + i}>{i === crumbs.length - 1 ? <span aria-current="page">{c.label}</span> : <AnchorLink to={c.to}>{c.label}</AnchorLink>}</li>
        ))}
      </ol>
    </nav>
  );
}

export function TrialBanner({ banner }: { banner: { expired: boolean; text: string } | null }) {
  if (!banner) return null;
  return (
    <div className={`trial-banner${banner.expired ? ' expired' : ''}`} data-testid="trial-banner" role="note">
      {banner.text} <AnchorLink to="/settings/my-plan">{banner.expired ? 'See plans' : 'Upgrade'}</AnchorLink>
    </div>
  );
}

/**
 * Desktop notifications in the browser (ADR 155), two paths:
 * - Web Push: the agents' service worker (/agent-sw.js, scope /) shows what the engine pushes, with no Parley tab open;
 *   Settings → Notification subscribes this browser when "Browser push notifications" is saved on.
 * - An open tab: tab-notifications.ts (apart, so that the shell of every screen ships only that).
 */

export const AGENT_SERVICE_WORKER_URL = '/agent-sw.js';

/** Whether this browser can take push notifications at all. */
export function browserCanPush() {
  return typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && typeof Notification !== 'undefined';
}

export const PUSH_UNSUPPORTED_MESSAGE = 'This browser cannot show notifications from a website: use a recent Chrome, Edge, Firefox or Safari, or turn the option off.';
export const PUSH_BLOCKED_MESSAGE = 'Notifications are blocked for this site in this browser: allow them in the browser\'s site settings, then save again.';
export const PUSH_DISMISSED_MESSAGE = 'Notifications were not allowed: save again and choose Allow when the browser asks.';

function keyBytes(b64url: string) {
  const b64 = b64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

/**
 * Turned on: asks for permission (on the user's click), registers the service worker and subscribes with the account's
 * VAPID key; answers the subscription's JSON for the server. Turned off: this browser's subscription is ended. Throws
 * an Error with the message to show when the browser cannot or will not.
 */
export async function prepareBrowserPush(on: boolean, vapidPublicKey: string): Promise<string | null> {
  if (!browserCanPush()) {
    if (on) throw new Error(PUSH_UNSUPPORTED_MESSAGE);
    return null;
  }
  if (!on) {
    const reg = await navigator.serviceWorker.getRegistration('/');
    const sub = await reg?.pushManager.getSubscription();
    await sub?.unsubscribe();
    return null;
  }
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new Error(permission === 'denied' ? PUSH_BLOCKED_MESSAGE : PUSH_DISMISSED_MESSAGE);
  await navigator.serviceWorker.register(AGENT_SERVICE_WORKER_URL, { scope: '/' });
  const reg = await navigator.serviceWorker.ready;
  const sub = (await reg.pushManager.getSubscription()) ?? (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(vapidPublicKey) }));
  return JSON.stringify(sub.toJSON());
}

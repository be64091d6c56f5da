/**
 * Desktop notifications from an open tab (ADR 155): a notification that arrives over the live socket is shown with the
 * Notification API while the tab is hidden (a visible tab has the bell), for agents who turned "Browser push
 * notifications" on, unless this browser holds a push subscription: then the push shows it, with no tab open too. Both
 * carry the same tag, so a browser that got both would replace one with the other rather than show it twice.
 */
/** Shows a live `notification` message (see above); `open` takes the agent to its link. Answers whether it showed. */
export async function showTabNotification(m: { [k: string]: unknown }, open: (link: string) => void) {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted' || document.visibilityState !== 'hidden') return false;
  if ('serviceWorker' in navigator) {
    const reg = await navigator.serviceWorker.getRegistration('/');
    if (reg && (await reg.pushManager?.getSubscription())) return false;
  }
  const n = new Notification(String(m.title ?? 'Parley'), { body: typeof m.body === 'string' ? m.body : '', tag: `parley-notification-${String(m.id)}` });
  n.onclick = () => {
    window.focus();
    if (typeof m.link === 'string' && m.link.startsWith('/')) open(m.link);
    n.close();
  };
  return true;
}

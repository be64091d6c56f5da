/**
 * Runs in the page before any script (Playwright's addInitScript): a stand-in `PushManager.prototype.subscribe` and
 * `getSubscription` for a Chromium that cannot reach a push service from this machine (ADR 083, 155). It makes the
 * subscription as a browser would: a P-256 key pair and a 16-byte auth secret generated in the page with WebCrypto,
 * and an endpoint on the local push service stand-in (push-service.ts), which the test then hands the private key
 * (`adopt`), as a real push service hands the encrypted message to the browser that holds it. The service worker,
 * the permission and everything else stay the browser's own.
 */
export type StandInState = { keys?: { id: string; privateKey: string; p256dh: string; auth: string }; applicationServerKey?: string; userVisibleOnly?: boolean; unsubscribed?: number };

export function standInPushManager(pushOrigin: string) {
  const b64u = (bytes: ArrayBuffer | Uint8Array) =>
    btoa(String.fromCharCode(...new Uint8Array(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  const state: StandInState & { sub?: unknown } = {};
  (window as unknown as { __pushStandIn: typeof state }).__pushStandIn = state;
  PushManager.prototype.getSubscription = async function () {
    return (state.sub ?? null) as PushSubscription | null;
  };
  PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
    const pair = (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits'])) as CryptoKeyPair;
    const raw = await crypto.subtle.exportKey('raw', pair.publicKey);
    const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
    const auth = crypto.getRandomValues(new Uint8Array(16));
    const id = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
    const endpoint = `${pushOrigin}/push/${id}`;
    const keys = { p256dh: b64u(raw), auth: b64u(auth) };
    state.keys = { id, privateKey: jwk.d!, ...keys };
    state.applicationServerKey = b64u(options?.applicationServerKey as Uint8Array);
    state.userVisibleOnly = options?.userVisibleOnly;
    state.sub = {
      endpoint,
      expirationTime: null,
      options,
      getKey: (name: string) => (name === 'p256dh' ? raw : auth.buffer),
      toJSON: () => ({ endpoint, expirationTime: null, keys }),
      unsubscribe: async () => {
        state.sub = undefined;
        state.unsubscribed = (state.unsubscribed ?? 0) + 1;
        return true;
      },
    };
    return state.sub as PushSubscription;
  };
}


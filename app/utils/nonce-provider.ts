import { createContext, createElement, useContext, type ReactNode } from 'react';

/**
 * The Content-Security-Policy nonce of this response (server/security-headers.ts makes one per request), for
 * Remix's own inline scripts. In the browser it is empty: browsers hide nonces from the DOM anyway.
 */
const NonceContext = createContext('');

export function NonceProvider({ value, children }: { value: string; children: ReactNode }) {
  return createElement(NonceContext.Provider, { value }, children);
}

export function useNonce() {
  return useContext(NonceContext);
}

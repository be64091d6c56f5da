// Remix bundles app/ into build/ while server/ and engine/ import the same modules through tsx,
// so module-level state would exist twice. Long-lived objects (pools, hubs, config) live on globalThis.
export function singleton<T>(name: string, create: () => T): T {
  const store = globalThis as unknown as { __parleySingletons?: Map<string, unknown> };
  store.__parleySingletons ??= new Map();
  if (!store.__parleySingletons.has(name)) store.__parleySingletons.set(name, create());
  return store.__parleySingletons.get(name) as T;
}

export function resetSingleton(name: string) {
  const store = globalThis as unknown as { __parleySingletons?: Map<string, unknown> };
  store.__parleySingletons?.delete(name);
}

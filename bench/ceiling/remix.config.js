/**
 * The ceiling of issue 23: a bare Remix 2 app (same Remix, React and Express as Parley, classic compiler, single
 * fetch) whose one page renders the inbox list's 50 rows from memory. `npm run bench:pages` builds and runs it.
 */
/** @type {import('@remix-run/dev').AppConfig} */
export default {
  serverModuleFormat: 'esm',
  serverPlatform: 'node',
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    v3_singleFetch: true,
    v3_routeConfig: false,
  },
};

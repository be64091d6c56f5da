// Ambient declarations for modules without types of their own.
declare module '*.css?url' {
  const href: string;
  export default href;
}

declare module 'pg/lib/utils.js' {
  const utils: { prepareValue: (value: unknown) => unknown };
  export default utils;
}

/** The part of mjml's API Parley uses (mjml 5 ships no types; its compile may return a promise). */
declare module 'mjml' {
  type Result = { html: string; errors: { message: string }[] };
  export default function mjml2html(source: string, options?: { validationLevel?: 'strict' | 'soft' | 'skip'; minify?: boolean }): Result | Promise<Result>;
}

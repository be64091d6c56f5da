import crypto from 'node:crypto';
import path from 'node:path';
import zlib from 'node:zlib';
import { resetSingleton, singleton } from '../../utils/singleton.server';

/** The budget for the script customers paste: under 20 KB once compressed. */
export const WIDGET_GZIP_BUDGET = 20 * 1024;

export type WidgetBundle = { code: string; gzip: Buffer; etag: string };

/** Where the widget's source lives: plain TypeScript, no framework, compiled by esbuild. */
export const WIDGET_ENTRY = path.resolve(process.cwd(), 'app/widget/widget.ts');

/**
 * Compiles the messenger widget once per process (esbuild: the Remix compiler's and tsx's own, ~50 ms) and keeps
 * the minified script and its gzip in memory. Failing here is a deployment error, not a visitor's.
 */
export function getWidgetBundle(): Promise<WidgetBundle> {
  return singleton('widget-bundle', () =>
    buildWidgetBundle().catch((err) => {
      resetSingleton('widget-bundle');
      throw err;
    }),
  );
}

/** The in-app survey module (ADR 061): fetched by the widget only on a page a published in-app survey targets. */
export const SURVEY_MODULE_ENTRY = path.resolve(process.cwd(), 'app/widget/survey.ts');
/** The budget for the survey module: at most 12 KB once compressed. */
export const SURVEY_MODULE_GZIP_BUDGET = 12 * 1024;

export function getSurveyModuleBundle(): Promise<WidgetBundle> {
  return singleton('survey-module-bundle', () =>
    buildWidgetBundle(SURVEY_MODULE_ENTRY).catch((err) => {
      resetSingleton('survey-module-bundle');
      throw err;
    }),
  );
}

export async function buildWidgetBundle(entry = WIDGET_ENTRY): Promise<WidgetBundle> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2019'],
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].text;
  const gzip = zlib.gzipSync(code, { level: 9 });
  const etag = `"${crypto.createHash('sha256').update(code).digest('base64url').slice(0, 16)}"`;
  return { code, gzip, etag };
}

/**
 * A bundle as a script for any site: public, cacheable for an hour (a new release reaches sites within it), with an
 * ETag, gzip-compressed when the browser accepts it.
 */
export function scriptResponse(request: Request, bundle: WidgetBundle) {
  const headers: Record<string, string> = {
    'Content-Type': 'application/javascript; charset=utf-8',
    'Cache-Control': 'public, max-age=3600',
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    ETag: bundle.etag,
    Vary: 'Accept-Encoding',
  };
  if (request.headers.get('if-none-match') === bundle.etag) return new Response(null, { status: 304, headers });
  if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
    return new Response(new Uint8Array(bundle.gzip), { headers: { ...headers, 'Content-Encoding': 'gzip', 'Content-Length': String(bundle.gzip.length) } });
  }
  return new Response(bundle.code, { headers });
}

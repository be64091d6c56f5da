import fs from 'node:fs';
import path from 'node:path';

/** The version of this build, from package.json (read once; `npm start` and the built server run from the checkout). */
export const PARLEY_VERSION: string = (() => {
  try {
    return (JSON.parse(fs.readFileSync(path.join(process.cwd(), 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
})();

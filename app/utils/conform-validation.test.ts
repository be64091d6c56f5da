import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A conform form that validates on blur or input without a browser-side check asks the server on every blur:
 * it posts the form without its submit button, so sign-in counted failed attempts and actions that read
 * `intent` answered "Unknown intent" (ADR 027 addendum). Such forms must validate on submit only.
 */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx$/.test(e.name) ? [p] : [];
  });
}

function useFormOptions(source: string): string[] {
  const found: string[] = [];
  let at = source.indexOf('useForm(');
  while (at !== -1) {
    let depth = 0;
    let end = at + 'useForm'.length;
    for (; end < source.length; end++) {
      if (source[end] === '(') depth++;
      else if (source[end] === ')' && --depth === 0) break;
    }
    found.push(source.slice(at, end + 1));
    at = source.indexOf('useForm(', end);
  }
  return found;
}

describe('conform forms', () => {
  const root = path.resolve(__dirname, '..');
  const offenders = sources(root).flatMap((file) =>
    useFormOptions(
      fs
        .readFileSync(file, 'utf8')
        .replace(/useForm</g, 'useForm(')
        .replace(/useForm\(([^)]*?)>\(/g, 'useForm('),
    )
      .filter((options) => /should(Re)?[vV]alidate:\s*'on(Blur|Input)'/.test(options) && !/onValidate/.test(options))
      .map(() => path.relative(root, file)),
  );

  it('validate on blur or input only with a check in the browser', () => {
    expect(offenders).toEqual([]);
  });
});

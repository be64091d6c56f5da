import fs from 'node:fs';

/** Debian's Chromium (never a downloaded browser): CHROMIUM_PATH or /usr/bin/chromium. */
export function chromiumPath() {
  const p = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!fs.existsSync(p)) {
    throw new Error(
      `Chromium not found at ${p}. The browser tests use the system Chromium: install it with ` +
        '`sudo apt-get install -y chromium` (Debian/Ubuntu) or set CHROMIUM_PATH to a Chromium binary.',
    );
  }
  return p;
}

import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FileStorage, StoredObject } from './files.server';
import { checkStorageKey, checkStoragePrefix, InvalidStorageKeyError, isLegacyImportKey, isStorageKey } from './keys.server';

/** Errors that mean "no file under this key" rather than "the disk is in trouble". */
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);
const isMissing = (err: unknown) => MISSING.has((err as NodeJS.ErrnoException)?.code ?? '');

/**
 * Files under PARLEY_DATA_DIR/attachments/<key>, readable by Parley's user only: the default, right for one machine
 * (or several sharing one network file system). Legacy import keys (`imports/...`) stay under PARLEY_DATA_DIR/imports,
 * where they were written, so an upgrade moves no file.
 */
export class LocalFileStorage implements FileStorage {
  readonly backend = 'local' as const;
  readonly root: string;
  private readonly dataDir: string;

  constructor(dataDir: string) {
    this.dataDir = path.resolve(dataDir);
    this.root = path.join(this.dataDir, 'attachments');
  }

  /** The file of a key: the layout check first, then the resolved path must stay inside its directory. */
  pathOf(key: string) {
    checkStorageKey(key);
    const base = isLegacyImportKey(key) ? this.dataDir : this.root;
    const full = path.resolve(base, key);
    if (!full.startsWith(base + path.sep)) throw new InvalidStorageKeyError();
    return full;
  }

  async put(key: string, bytes: Uint8Array) {
    const full = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(full), { recursive: true });
    await fs.promises.writeFile(full, bytes, { mode: 0o600 });
  }

  async putFile(key: string, filePath: string) {
    const full = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(full), { recursive: true });
    await fs.promises.copyFile(filePath, full);
    await fs.promises.chmod(full, 0o600);
  }

  async get(key: string) {
    const full = this.pathOf(key);
    try {
      return await fs.promises.readFile(full);
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async getStream(key: string): Promise<Readable | undefined> {
    const full = this.pathOf(key);
    let handle: fs.promises.FileHandle;
    try {
      // Opened here so that a missing file is an answer now, not an error event later.
      handle = await fs.promises.open(full, 'r');
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    return handle.createReadStream({ highWaterMark: 256 * 1024 });
  }

  async stat(key: string) {
    const full = this.pathOf(key);
    try {
      const st = await fs.promises.stat(full);
      return st.isFile() ? { size: st.size } : undefined;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async exists(key: string) {
    return (await this.stat(key)) !== undefined;
  }

  async delete(keys: string[]) {
    const paths = keys.map((key) => this.pathOf(key));
    await Promise.all(paths.map((full) => fs.promises.rm(full, { force: true })));
  }

  async *list(prefix = ''): AsyncGenerator<StoredObject> {
    checkStoragePrefix(prefix);
    const trees = [
      { base: this.root, under: '' },
      { base: this.dataDir, under: 'imports' },
    ];
    for (const tree of trees) {
      // Walk only the directory the prefix can be in: an account's files without reading every account's.
      const dirOfPrefix = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
      let start: string;
      if (tree.under === '') start = dirOfPrefix;
      else if (dirOfPrefix === tree.under || dirOfPrefix.startsWith(`${tree.under}/`)) start = dirOfPrefix;
      else if (tree.under.startsWith(prefix)) start = tree.under;
      else continue;
      for await (const key of walk(tree.base, start)) {
        if (!key.startsWith(prefix) || !isStorageKey(key)) continue;
        if (tree.under === '' && isLegacyImportKey(key)) continue;
        const st = await fs.promises.stat(path.join(tree.base, key)).catch(() => undefined);
        if (st?.isFile()) yield { key, size: st.size };
      }
    }
  }
}

/** Relative paths (with '/') of the files below base/dir, depth first, in name order; no symbolic link is followed. */
async function* walk(base: string, dir: string): AsyncGenerator<string> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(path.join(base, dir), { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return;
    throw err;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) yield* walk(base, rel);
    else if (entry.isFile()) yield rel;
  }
}

import type { Readable } from 'node:stream';
import { getConfig, type Config } from '../../utils/env.server';
import { getLogger } from '../../utils/logger.server';
import { resetSingleton, singleton } from '../../utils/singleton.server';
import { InvalidStorageKeyError, isStorageKey, newStorageKey } from './keys.server';
import { LocalFileStorage } from './local-files.server';
import { S3FileStorage } from './s3-files.server';

export { InvalidStorageKeyError, isStorageKey } from './keys.server';

export type StoredObject = { key: string; size: number };

/**
 * Every file Parley keeps between one request or job and another (attachments, knowledge-base images, form uploads,
 * import files) goes through this one interface (ADR 141), so that N web and engine processes on different machines
 * see the same files. Keys follow keys.server.ts; a key outside that layout is refused (InvalidStorageKeyError)
 * before anything is touched. A missing file is `undefined`/`false`; a store that cannot be reached throws.
 */
export interface FileStorage {
  readonly backend: 'local' | 's3';
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** Stores a file of this machine's disk under the key without reading it whole (an account export's archive, ADR 153). */
  putFile(key: string, filePath: string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  /** For readers that must not hold a whole file (the import job reads its file a row at a time). */
  getStream(key: string): Promise<Readable | undefined>;
  exists(key: string): Promise<boolean>;
  stat(key: string): Promise<{ size: number } | undefined>;
  /** Removes the files that are there; a key already gone is no error. */
  delete(keys: string[]): Promise<void>;
  /** Every stored file whose key starts with `prefix` (all of them with ''), in no promised order. */
  list(prefix?: string): AsyncIterable<StoredObject>;
}

export function createFileStorage(config: Pick<Config, 'dataDir' | 'storage'>): FileStorage {
  if (config.storage.backend === 'local') return new LocalFileStorage(config.dataDir);
  // The configuration refuses PARLEY_STORAGE=s3 without a bucket; this only guards a hand-made Config.
  if (!config.storage.s3) throw new Error('PARLEY_STORAGE=s3 needs S3_BUCKET');
  return new S3FileStorage(config.storage.s3);
}

/**
 * The storage of this process's configuration. Rebuilt when the configuration object changes (a test or the CLI that
 * resets it gets a storage of the new one).
 */
export function getFileStorage(): FileStorage {
  const config = getConfig();
  const held = singleton('file-storage', () => ({ config, storage: createFileStorage(config) }));
  if (held.config === config) return held.storage;
  resetSingleton('file-storage');
  return getFileStorage();
}

/** Writes bytes under a new key of the account and returns the key. */
export async function writeStoredFile(accountId: number, bytes: Uint8Array, opts: { extension?: 'csv' | 'xlsx' } = {}) {
  const storageKey = newStorageKey(accountId, opts.extension);
  await getFileStorage().put(storageKey, bytes);
  return { storageKey };
}

/**
 * The bytes stored under a key, or undefined when the file is gone or the key is not one of the layout (as before
 * ADR 141). An unreachable store throws: a reply must not leave without its attachment because S3 was down.
 */
export async function readStoredFile(storageKey: string) {
  try {
    return await getFileStorage().get(storageKey);
  } catch (err) {
    if (err instanceof InvalidStorageKeyError) return undefined;
    throw err;
  }
}

/**
 * Removes the files of rows that were rolled back or deleted. Best effort: it runs in clean-up paths (often while
 * another error is on its way up), so a failure is logged, never thrown; an orphaned file costs space, nothing else.
 */
export async function removeStoredFiles(storageKeys: string[]) {
  const keys = storageKeys.filter((key) => isStorageKey(key));
  if (keys.length < storageKeys.length) getLogger().warn({ refused: storageKeys.length - keys.length }, 'stored files: keys outside the layout were not removed');
  if (keys.length === 0) return;
  try {
    await getFileStorage().delete(keys);
  } catch (err) {
    getLogger().warn({ err: err instanceof Error ? err.message : String(err), files: keys.length }, 'stored files could not be removed');
  }
}

import crypto from 'node:crypto';

/**
 * A storage key is `<accountId>/<yyyy-mm>/<32 random hex>`, optionally with an extension (a contact import's file
 * keeps its kind, `.csv` or `.xlsx`, in its key). Never derived from anything a sender chose, so it cannot climb
 * out of the local directory or reach another account's objects in the bucket.
 */
const KEY_PATTERN = /^[1-9]\d{0,9}\/\d{4}-(0[1-9]|1[0-2])\/[0-9a-f]{32}(\.[a-z0-9]{1,8})?$/;

/**
 * Contact import and email survey recipient files written before ADR 141 (`imports/<accountId>/<uuid>.csv|xlsx`):
 * rows still name them, so they stay readable where they are (the local backend) and are copied by `storage migrate`.
 */
const LEGACY_IMPORT_KEY_PATTERN = /^imports\/[1-9]\d{0,9}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(csv|xlsx)$/;

export class InvalidStorageKeyError extends Error {
  constructor() {
    // The key itself stays out of the message: it may be whatever a caller was handed.
    super('Invalid storage key');
  }
}

export function isStorageKey(key: string) {
  return KEY_PATTERN.test(key) || LEGACY_IMPORT_KEY_PATTERN.test(key);
}

export function isLegacyImportKey(key: string) {
  return LEGACY_IMPORT_KEY_PATTERN.test(key);
}

/** The key when it is one of the layouts above; throws InvalidStorageKeyError before any file or object is touched. */
export function checkStorageKey(key: string) {
  if (typeof key !== 'string' || !isStorageKey(key)) throw new InvalidStorageKeyError();
  return key;
}

/** A prefix given to list(): a start of a key, never a path that could leave the layout. */
export function checkStoragePrefix(prefix: string) {
  if (typeof prefix !== 'string' || !/^[a-z0-9/.-]{0,100}$/.test(prefix) || prefix.includes('..') || prefix.startsWith('/')) {
    throw new InvalidStorageKeyError();
  }
  return prefix;
}

/** A new key of the account, in the month it is written (a backup or a clean-up can go month by month). */
export function newStorageKey(accountId: number, extension?: string) {
  if (!Number.isInteger(accountId) || accountId < 1) throw new InvalidStorageKeyError();
  const now = new Date();
  const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  return checkStorageKey(`${accountId}/${month}/${crypto.randomBytes(16).toString('hex')}${extension ? `.${extension}` : ''}`);
}

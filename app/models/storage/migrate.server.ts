import crypto from 'node:crypto';
import type { LocalFileStorage } from './local-files.server';
import type { S3FileStorage } from './s3-files.server';

export type MigrationReport = {
  copied: number;
  /** Already in the bucket with the same size (or removed from the disk while the copy ran). */
  skipped: number;
  failed: number;
  /** Bytes copied (not those skipped). */
  bytes: number;
  failures: { key: string; reason: string }[];
};

const md5 = (bytes: Uint8Array) => crypto.createHash('md5').update(bytes).digest('hex');
const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');

/**
 * Copies every file of the local storage into the bucket (ADR 141), for the move of an installation from one machine
 * to several. Idempotent: a file already in the bucket with the same size is skipped, so a second run (or one after a
 * failure) copies only what is missing. Each copy is checked: the size the bucket reports, and its ETag against the
 * MD5 of the bytes, or, when the store's ETag is not an MD5 (SSE-KMS, multipart), the copy read back and compared.
 * The local files are never removed.
 */
export async function migrateLocalFiles(opts: {
  source: LocalFileStorage;
  target: S3FileStorage;
  concurrency?: number;
  onFailure?: (failure: { key: string; reason: string }) => void;
}): Promise<MigrationReport> {
  const report: MigrationReport = { copied: 0, skipped: 0, failed: 0, bytes: 0, failures: [] };
  // One listing of the bucket instead of a request per file to learn what is there already.
  const inBucket = new Map<string, number>();
  for await (const object of opts.target.list('')) inBucket.set(object.key, object.size);

  const copyOne = async (key: string, size: number) => {
    if (inBucket.get(key) === size) {
      report.skipped += 1;
      return;
    }
    try {
      const bytes = await opts.source.get(key);
      if (!bytes) {
        report.skipped += 1;
        return;
      }
      await opts.target.put(key, bytes);
      const copy = await opts.target.stat(key);
      if (!copy) throw new Error('not in the bucket after the upload');
      if (copy.size !== bytes.byteLength) throw new Error(`${copy.size} bytes in the bucket, ${bytes.byteLength} on disk`);
      if (copy.etag !== md5(bytes)) {
        const back = await opts.target.get(key);
        if (!back || sha256(back) !== sha256(bytes)) throw new Error('the copy read back from the bucket differs from the file');
      }
      report.copied += 1;
      report.bytes += bytes.byteLength;
    } catch (err) {
      const failure = { key, reason: err instanceof Error ? err.message : String(err) };
      report.failed += 1;
      report.failures.push(failure);
      opts.onFailure?.(failure);
    }
  };

  // A few copies at once: each is a round trip to the store. Workers share the one listing (an async generator
  // answers its callers one after another).
  const files = opts.source.list('')[Symbol.asyncIterator]();
  const worker = async () => {
    for (let next = await files.next(); !next.done; next = await files.next()) await copyOne(next.value.key, next.value.size);
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 8 }, worker));
  return report;
}

import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Settings } from '../../utils/env.server';
import type { FileStorage, StoredObject } from './files.server';
import { checkStorageKey, checkStoragePrefix, isStorageKey } from './keys.server';

type Sdk = typeof import('@aws-sdk/client-s3');

/** "No such object" (GetObject says NoSuchKey, HeadObject only its status). A missing bucket stays an error. */
function isMissing(err: unknown) {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || (e?.name === 'NotFound' && e.$metadata?.httpStatusCode === 404);
}

/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, Ceph, Garage, R2...) under `<S3_PREFIX><key>`: the backend for
 * several machines. The SDK is loaded on first use, so a local installation never pays for it.
 */
export class S3FileStorage implements FileStorage {
  readonly backend = 's3' as const;
  private loaded: Promise<{ sdk: Sdk; client: S3Client }> | null = null;

  constructor(
    readonly settings: S3Settings,
    private readonly opts: { listPageSize?: number; deleteConcurrency?: number } = {},
  ) {}

  private connect() {
    this.loaded ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: this.settings.region,
        endpoint: this.settings.endpoint ?? undefined,
        forcePathStyle: this.settings.forcePathStyle,
        // Unset: the SDK's own chain (AWS_* variables, instance or task roles). Never logged.
        credentials: this.settings.credentials ?? undefined,
        // Many S3-compatible stores refuse the SDK's newer default CRC32 checksum headers and trailers; put() sends
        // Content-MD5 instead, which they all check.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        // A store that stopped answering fails the request instead of holding it (and its job) forever.
        requestHandler: { connectionTimeout: 10_000, socketTimeout: 60_000 },
      }),
    }));
    return this.loaded;
  }

  private objectKey(key: string) {
    return this.settings.prefix + checkStorageKey(key);
  }

  async put(key: string, bytes: Uint8Array) {
    const objectKey = this.objectKey(key);
    const { sdk, client } = await this.connect();
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: objectKey,
        Body: body,
        ContentLength: body.byteLength,
        ContentMD5: crypto.createHash('md5').update(body).digest('base64'),
        // What the bytes are is recorded in the database; the bucket never serves them to a browser.
        ContentType: 'application/octet-stream',
      }),
    );
  }

  /**
   * One PutObject streamed from the file (a single PUT takes up to 5 GB): the file is read twice, once for its
   * Content-MD5 (see put()) and once as the body, so it is never held whole.
   */
  async putFile(key: string, filePath: string) {
    const objectKey = this.objectKey(key);
    const { sdk, client } = await this.connect();
    const { size } = await fs.promises.stat(filePath);
    const md5 = crypto.createHash('md5');
    for await (const chunk of fs.createReadStream(filePath)) md5.update(chunk as Buffer);
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: objectKey,
        Body: fs.createReadStream(filePath),
        ContentLength: size,
        ContentMD5: md5.digest('base64'),
        ContentType: 'application/octet-stream',
      }),
    );
  }

  async get(key: string) {
    const objectKey = this.objectKey(key);
    const { sdk, client } = await this.connect();
    try {
      const out = await client.send(new sdk.GetObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
      if (!out.Body) return Buffer.alloc(0);
      return Buffer.from(await out.Body.transformToByteArray());
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async getStream(key: string): Promise<Readable | undefined> {
    const objectKey = this.objectKey(key);
    const { sdk, client } = await this.connect();
    try {
      const out = await client.send(new sdk.GetObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
      // In Node the body is the HTTP response itself (an IncomingMessage): a Readable.
      return out.Body as Readable | undefined;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  /** Size and ETag (for a single-part upload without SSE-KMS, the hex MD5 of the bytes). */
  async stat(key: string): Promise<{ size: number; etag: string | null } | undefined> {
    const objectKey = this.objectKey(key);
    const { sdk, client } = await this.connect();
    try {
      const out = await client.send(new sdk.HeadObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
      return { size: out.ContentLength ?? 0, etag: out.ETag ? out.ETag.replace(/"/g, '').toLowerCase() : null };
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async exists(key: string) {
    return (await this.stat(key)) !== undefined;
  }

  /**
   * One DeleteObject per key: DeleteObjects needs a checksum header that not every S3-compatible store accepts, and
   * files are removed a few at a time (a message's attachments, a restore's images).
   */
  async delete(keys: string[]) {
    const objectKeys = keys.map((key) => this.objectKey(key));
    const { sdk, client } = await this.connect();
    const queue = [...objectKeys];
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        await client.send(new sdk.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: next }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.deleteConcurrency ?? 8, queue.length) }, worker));
  }

  async *list(prefix = ''): AsyncGenerator<StoredObject> {
    checkStoragePrefix(prefix);
    const { sdk, client } = await this.connect();
    let token: string | undefined;
    do {
      const page = await client.send(
        new sdk.ListObjectsV2Command({
          Bucket: this.settings.bucket,
          Prefix: this.settings.prefix + prefix,
          ContinuationToken: token,
          MaxKeys: this.opts.listPageSize ?? 1000,
        }),
      );
      for (const item of page.Contents ?? []) {
        const key = (item.Key ?? '').slice(this.settings.prefix.length);
        // Whatever else shares the bucket (or the prefix) is not Parley's.
        if (isStorageKey(key)) yield { key, size: item.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * Whether the bucket answers with these settings: a clear sentence for the operator (never the credentials), or
   * null. The bucket is never created here: a typo in S3_BUCKET must not make a new, empty one.
   */
  async checkBucket(): Promise<string | null> {
    const { sdk, client } = await this.connect();
    try {
      await client.send(new sdk.HeadBucketCommand({ Bucket: this.settings.bucket }));
      return null;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const where = `bucket "${this.settings.bucket}"${this.settings.endpoint ? ` at ${this.settings.endpoint}` : ` in ${this.settings.region}`}`;
      if (status === 404) return `The ${where} does not exist: create it first.`;
      if (status === 403 || status === 401) return `The ${where} refused these credentials (S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY).`;
      return `The ${where} could not be reached: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** Closes the client's sockets (a CLI run or a test that ends). */
  async close() {
    if (!this.loaded) return;
    const { client } = await this.loaded;
    client.destroy();
    this.loaded = null;
  }
}

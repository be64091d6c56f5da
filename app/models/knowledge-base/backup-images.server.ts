import { and, eq, sql } from 'drizzle-orm';
import type { ReservedSql } from 'postgres';
import { schema, type Tx } from '../../../db/client';
import { getLogger } from '../../utils/logger.server';
import { readStoredFile, removeStoredFiles, writeStoredFile } from '../storage/files.server';
import { ArchiveError, isoTimestamp, recordLine } from './archive.server';
import { checkKbImage, KbImageError } from './images.server';

type Scope = { accountId: number; knowledgeBaseId: number };
const img = schema.kbImages;

/**
 * The image records of a backup (ADR 059): one line per image with its bytes in base64, read one file at a time
 * (an image is at most 5 MB), so memory holds one image whatever the number of them. An image whose file is gone
 * from the storage is left out (and logged) rather than failing the whole backup.
 */
export async function* backupImageRecords(db: ReservedSql, scope: Scope): AsyncGenerator<string> {
  for await (const rows of db`
    select id, token, storage_key, filename, content_type, created_at from kb_images
     where account_id = ${scope.accountId} and knowledge_base_id = ${scope.knowledgeBaseId} order by id`.cursor(20)) {
    for (const r of rows) {
      const bytes = await readStoredFile(r.storage_key as string);
      if (!bytes) {
        getLogger().warn({ ...scope, imageId: r.id }, 'knowledge base backup: an image file is missing, left out');
        continue;
      }
      yield recordLine({
        t: 'image',
        id: r.id,
        token: r.token,
        filename: r.filename,
        contentType: r.content_type,
        createdAt: isoTimestamp(r.created_at),
        data: bytes.toString('base64'),
      });
    }
  }
}

/**
 * Writes a backup's image files while the restore's transaction is open and removes them again if it rolls back;
 * after a commit, removes the files of the images the restore replaced. An image keeps its token (its address,
 * /kb-images/{token}, is relative and names no knowledge base), so the articles' HTML needs no rewriting.
 */
export class ImageRestorer {
  knowledgeBaseId = 0;
  private written: string[] = [];
  private replaced: string[] = [];
  constructor(readonly accountId: number) {}

  /** Takes the images out of a knowledge base whose content the restore replaces (their files go after the commit). */
  async clear(tx: Tx, knowledgeBaseId: number) {
    const gone = await tx
      .delete(img)
      .where(and(eq(img.accountId, this.accountId), eq(img.knowledgeBaseId, knowledgeBaseId)))
      .returning({ storageKey: img.storageKey });
    this.replaced.push(...gone.map((g) => g.storageKey));
  }

  /**
   * Writes one image record. With `skipExisting` (an import, which merges), an image whose token the knowledge base
   * already has is left as it is: a second import of the same file adds no copy. Returns whether it was written.
   */
  async restore(tx: Tx, line: number, record: Record<string, unknown>, opts: { skipExisting?: boolean } = {}) {
    const token = record.token as string;
    if (opts.skipExisting) {
      const [found] = await tx
        .select({ id: img.id })
        .from(img)
        .where(and(eq(img.accountId, this.accountId), eq(img.knowledgeBaseId, this.knowledgeBaseId), eq(img.token, token)))
        .limit(1);
      if (found) return false;
    }
    const bytes = Buffer.from(record.data as string, 'base64');
    let checked: { name: string; type: string };
    try {
      checked = await checkKbImage({ filename: record.filename as string, bytes });
    } catch (err) {
      if (err instanceof KbImageError) throw new ArchiveError(`Line ${line}: ${err.message}`);
      throw err;
    }
    const { storageKey } = await writeStoredFile(this.accountId, bytes);
    this.written.push(storageKey);
    await tx.insert(img).values({
      accountId: this.accountId,
      knowledgeBaseId: this.knowledgeBaseId,
      token,
      storageKey,
      filename: checked.name,
      contentType: checked.type,
      size: bytes.byteLength,
      createdBy: null,
      ...(typeof record.createdAt === 'string' ? { createdAt: sql<Date>`${record.createdAt}::timestamptz` } : {}),
    });
    return true;
  }

  async committed() {
    await removeStoredFiles(this.replaced);
    this.replaced = [];
  }

  async rolledBack() {
    await removeStoredFiles(this.written);
    this.written = [];
  }
}

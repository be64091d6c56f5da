import fs from 'node:fs';
import type { ReservedSql } from 'postgres';
import type { Tx } from '../../../db/client';

type Scope = { accountId: number; knowledgeBaseId: number };

/**
 * The images of a backup (ADR 059). Placeholder until the knowledge base's images table exists: no image records
 * are written, and a backup holding some is refused rather than restored without them.
 */
export async function* backupImageRecords(_db: ReservedSql, _scope: Scope): AsyncGenerator<string> {
  // Nothing yet.
}

/**
 * Writes a backup's image files while the restore's transaction is open, and removes them again if it rolls
 * back; after a commit, removes the files of the images the restore replaced.
 */
export class ImageRestorer {
  knowledgeBaseId = 0;
  private written: string[] = [];
  private replaced: string[] = [];
  constructor(readonly accountId: number) {}

  async restore(_tx: Tx, _record: Record<string, unknown>, _article: (fileId: number | null) => number | null): Promise<void> {
    throw new Error('images are not supported yet');
  }

  /** Article HTML with the backup's image addresses turned into the restored images' addresses. */
  rewriteHtml(html: string) {
    return html;
  }

  async committed() {
    await Promise.all(this.replaced.map((f) => fs.promises.rm(f, { force: true })));
  }

  async rolledBack() {
    await Promise.all(this.written.map((f) => fs.promises.rm(f, { force: true })));
  }
}

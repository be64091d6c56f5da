import { and, eq } from 'drizzle-orm';
import { fileTypeFromBuffer } from 'file-type';
import { getDb, schema } from '../../../db/client';
import { readAttachment, saveAttachment } from '../inbox/attachments.server';
import { removeStoredFiles } from '../storage/files.server';
import { recordChange } from '../productivity/shared.server';
import { LIMITS, SURVEY_MESSAGES } from './constants';
import { getSurvey, SurveyInputError } from './surveys.server';
import type { Viewer } from './folders.server';

const LOGO_TYPES = new Set(['image/png', 'image/jpeg']);

/**
 * A logo upload (survey-builder.md section 5 "Logo"): png, jpg or jpeg, under 2 MB, the type sniffed from the bytes.
 * Shared by the survey builder's logo and the CSAT email survey's logo. Throws a SurveyInputError on field `logo`.
 */
export async function checkLogoFile(file: File | null) {
  if (!file || file.size === 0) throw new SurveyInputError(SURVEY_MESSAGES.logoMissing, 'logo');
  if (file.size >= LIMITS.logoBytes) throw new SurveyInputError(SURVEY_MESSAGES.logoSize, 'logo');
  if (!/\.(png|jpe?g)$/i.test(file.name)) throw new SurveyInputError(SURVEY_MESSAGES.logoType, 'logo');
  const bytes = new Uint8Array(await file.arrayBuffer());
  const sniffed = await fileTypeFromBuffer(bytes).catch(() => undefined);
  if (!sniffed || !LOGO_TYPES.has(sniffed.mime)) throw new SurveyInputError(SURVEY_MESSAGES.logoType, 'logo');
  return { file, bytes, mime: sniffed.mime };
}

/** An attachment of the account shown as a logo: only when it is a png or jpeg picture. */
export async function readLogoAttachment(opts: { accountId: number; id: number }) {
  const found = await readAttachment(opts);
  if (!found || !LOGO_TYPES.has(found.attachment.contentType)) return undefined;
  return found;
}

/** Deletes a logo's attachment row and its stored file (the caller has checked nothing else shows it). */
export async function dropLogoFile(opts: { accountId: number; id: number }) {
  const [row] = await getDb()
    .delete(schema.attachments)
    .where(and(eq(schema.attachments.accountId, opts.accountId), eq(schema.attachments.id, opts.id)))
    .returning();
  if (row) await removeStoredFiles([row.storageKey]);
}

/**
 * Section 5 ": png, jpg or jpeg, under 2 MB ("File size must be less than 2mb."). The type is what the bytes
 * are (sniffed), not what the browser said. Stored like an attachment; the previous logo's file is removed unless a
 * published version still shows it.
 */
export async function uploadSurveyLogo(opts: { accountId: number; actorId: number | null; id: number; viewer?: Viewer; file: File | null }) {
  const survey = await getSurvey(opts);
  if (!survey) return undefined;
  const { file, bytes, mime } = await checkLogoFile(opts.file);
  return getDb().transaction(async (tx) => {
    const saved = await saveAttachment({ accountId: opts.accountId, messageId: null, filename: file.name, contentType: mime, bytes }, tx);
    await tx
      .update(schema.surveys)
      .set({ logoAttachmentId: saved.id, updatedAt: new Date(), updatedById: opts.actorId })
      .where(and(eq(schema.surveys.accountId, opts.accountId), eq(schema.surveys.id, survey.id)));
    await recordChange(tx, { ...opts, type: 'survey_updated', subjectType: 'survey', subjectId: survey.id, payload: { name: survey.name, step: 'design', fields: ['logo'] } });
    return saved;
  });
}

export async function removeSurveyLogo(opts: { accountId: number; actorId: number | null; id: number; viewer?: Viewer }) {
  const survey = await getSurvey(opts);
  if (!survey) return undefined;
  if (!survey.logoAttachmentId) return survey;
  const old = survey.logoAttachmentId;
  await getDb().transaction(async (tx) => {
    await tx
      .update(schema.surveys)
      .set({ logoAttachmentId: null, updatedAt: new Date(), updatedById: opts.actorId })
      .where(and(eq(schema.surveys.accountId, opts.accountId), eq(schema.surveys.id, survey.id)));
    await recordChange(tx, { ...opts, type: 'survey_updated', subjectType: 'survey', subjectId: survey.id, payload: { name: survey.name, step: 'design', fields: ['logo'] } });
  });
  // The file stays while any survey or published version still shows it (a clone shares its logo).
  const db = getDb();
  const [inSurvey] = await db.select({ id: schema.surveys.id }).from(schema.surveys).where(and(eq(schema.surveys.accountId, opts.accountId), eq(schema.surveys.logoAttachmentId, old))).limit(1);
  const [inVersion] = await db
    .select({ id: schema.surveyVersions.id })
    .from(schema.surveyVersions)
    .where(and(eq(schema.surveyVersions.accountId, opts.accountId), eq(schema.surveyVersions.logoAttachmentId, old)))
    .limit(1);
  if (!inSurvey && !inVersion) await dropLogoFile({ accountId: opts.accountId, id: old });
  return survey;
}

/**
 * A survey's logo for an <img>: served inline only when the bytes are a png or jpeg picture. Public (a published
 * web survey shows it to anyone with the link), found by the account and the survey's unguessable key.
 */
export async function readSurveyLogo(opts: { accountId: number; uniqueId: string }) {
  const [row] = await getDb()
    .select({ logo: schema.surveys.logoAttachmentId })
    .from(schema.surveys)
    .where(and(eq(schema.surveys.accountId, opts.accountId), eq(schema.surveys.uniqueId, opts.uniqueId)));
  if (!row?.logo) return undefined;
  return readLogoAttachment({ accountId: opts.accountId, id: row.logo });
}

/** A logo as an inline picture, never rendered as a document of this origin. */
export function logoResponse(found: { attachment: { contentType: string }; bytes: Uint8Array }) {
  return new Response(new Uint8Array(found.bytes), {
    headers: {
      'Content-Type': found.attachment.contentType,
      'Content-Length': String(found.bytes.byteLength),
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'public, max-age=300',
    },
  });
}

import { ensureDefaultFolder } from '../../app/models/surveys/folders.server';
import { appendQuestion } from '../../app/models/surveys/questions.server';
import { createSurvey, publishSurvey, updateSurvey } from '../../app/models/surveys/surveys.server';
import type { QuestionType, SurveyChannel, SurveySubType } from '../../app/models/surveys/constants';
import type { SurveyQuestion, SurveyTarget } from '../../app/models/surveys/types';

/** Every question type after the welcome the sub type starts with. */
export const ALL_TYPES: QuestionType[] = ['text', 'nps', 'radio', 'checkbox', 'rating', 'smiley', 'dropdown', 'form', 'date', 'csat', 'ces', 'thank-you'];

/**
 * A survey made and published through the builder's own model functions: the sub type's starter questions, then
 * `types` appended, `edit` applied to the question list, then settings and target, then Publish.
 */
export async function publishedSurvey(opts: {
  accountId: number;
  actorId: number;
  channel?: SurveyChannel;
  subType?: SurveySubType;
  name?: string;
  types?: QuestionType[];
  edit?: (list: SurveyQuestion[]) => SurveyQuestion[];
  settings?: { allowPartialSubmission?: boolean; responseLimit?: number | null; cutOffDate?: string | null };
  target?: Partial<SurveyTarget>;
  themeType?: string;
  publish?: boolean;
}) {
  const folder = await ensureDefaultFolder({ accountId: opts.accountId });
  const channel = opts.channel ?? 'web';
  const created = await createSurvey({
    accountId: opts.accountId,
    actorId: opts.actorId,
    name: opts.name ?? 'Customer survey',
    folderId: folder.id,
    subType: opts.subType ?? 'nps',
    channel,
  });
  let list = created.questions;
  for (const t of opts.types ?? []) list = appendQuestion(list, t).list;
  if (opts.edit) list = opts.edit(list);
  const patch: Record<string, unknown> = { questions: list };
  if (opts.settings?.allowPartialSubmission !== undefined) patch.allowPartialSubmission = opts.settings.allowPartialSubmission;
  if (opts.settings?.responseLimit !== undefined) patch.responseLimit = opts.settings.responseLimit;
  if (opts.settings?.cutOffDate !== undefined) patch.cutOffDate = opts.settings.cutOffDate;
  if (opts.target) patch.target = { ...created.target, ...opts.target };
  if (opts.themeType) patch.design = { ...created.design, themeType: opts.themeType };
  await updateSurvey({ accountId: opts.accountId, actorId: opts.actorId, id: created.id, patch, step: 'design' });
  if (opts.publish === false) return { survey: created, version: null };
  const published = await publishSurvey({ accountId: opts.accountId, actorId: opts.actorId, id: created.id });
  return { survey: published!.survey, version: published!.version };
}

/** The question of a type in a published version. */
export const questionOf = (version: { questions: SurveyQuestion[] }, type: QuestionType) => version.questions.find((q) => q.type === type)!;

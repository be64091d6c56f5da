import { data } from '@remix-run/node';
import type { z } from 'zod';
import { parseWithZod } from '../../utils/conform.server';
import { redirectWithToast } from '../../utils/toast.server';
import { FieldInputError } from './shared.server';

type Who = { accountId: number; actorId: number };

/**
 * The action of a settings editor whose page edits one named row of a list (tags, canned responses, email and
 * campaign templates): `delete` removes it, `save` validates with the schema and creates or updates, each going
 * back to the list with the screen's toast. A model's FieldInputError becomes that field's message (400); a row of
 * another account or gone is a 404; any other intent a 400.
 */
export async function settingsEditorAction<V extends object>(opts: {
  formData: FormData;
  who: Who;
  id: number | 'new';
  list: string;
  schema: z.ZodType<V>;
  create: (values: V & Who) => Promise<unknown>;
  update: (values: V & Who & { id: number }) => Promise<unknown>;
  remove: (values: Who & { id: number }) => Promise<unknown>;
  toasts: { created: string; updated: string; deleted: string };
}) {
  const { who, id, list, toasts } = opts;
  const intent = opts.formData.get('intent');
  if (intent === 'delete' && id !== 'new') {
    if (!(await opts.remove({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(list, { type: 'info', text: toasts.deleted });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(opts.formData, { schema: opts.schema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  try {
    if (id === 'new') {
      await opts.create({ ...who, ...submission.value });
      return redirectWithToast(list, toasts.created);
    }
    if (!(await opts.update({ ...who, id, ...submission.value }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(list, { type: 'info', text: toasts.updated });
  } catch (err) {
    if (err instanceof FieldInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
}

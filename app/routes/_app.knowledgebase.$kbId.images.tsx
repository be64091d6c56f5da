import type { ActionFunctionArgs } from '@remix-run/node';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { KbImageError, readImageForm, saveKbImage } from '~/models/knowledge-base/images.server';
import { KB_IMAGE_MESSAGES } from '~/models/knowledge-base/constants';
import { can, roleDenied } from '~/utils/session.server';

/**
 * The rich-text editor's upload (JavaScript only; without it the article form's own "Upload image" does the same):
 * one image in `image`, answered with its address, or 400 with the message for the field.
 */
export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'manage_articles')) await roleDenied(request);
  const { file } = await readImageForm(request, { fileField: 'image' });
  if (!file) return Response.json({ error: KB_IMAGE_MESSAGES.missing }, { status: 400 });
  try {
    const image = await saveKbImage({ accountId: kb.accountId, knowledgeBaseId: kb.id, filename: file.filename, bytes: file.bytes, userId: ctx.user.id });
    return Response.json({ url: image.url, filename: image.filename });
  } catch (err) {
    if (err instanceof KbImageError) return Response.json({ error: err.message }, { status: 400 });
    throw err;
  }
}

import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, TextareaField } from '~/components/ui/forms';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { canPostReply, replyNotPostedReason, SOURCE_KIND_LABELS, type ReviewSourceKind } from '~/models/reviews/constants';
import { findReviewConversationId } from '~/models/reviews/review-conversations.server';
import { getReview, replyToReview, setReviewFeatured } from '~/models/reviews/reviews.server';
import { ReplySchema } from '~/models/reviews/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, publicUser, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerSatisfactionSurveys/enabled', await requireUser(request));
  const id = parseRouteId(params.id);
  const found = id ? await getReview({ accountId: ctx.account.id, id }) : undefined;
  if (!found) throw new Response('Not Found', { status: 404 });
  const { review, source, contact } = found;
  const conversationId = await findReviewConversationId({ accountId: ctx.account.id, reviewId: review.id });
  return {
    conversationId,
    review: {
      id: review.id,
      reviewerName: review.reviewerName,
      rating: review.rating,
      text: review.text,
      replyText: review.replyText,
      repliedAt: review.repliedAt,
      replyError: review.replyError,
      isFeatured: review.isFeatured,
      reviewedAt: review.reviewedAt,
    },
    source: { name: source.name, kind: source.kind, reviewUrl: source.reviewUrl, postsReplies: canPostReply(source.kind, review.externalId), notPosted: replyNotPostedReason(source.kind, review.externalId) },
    contact: contact ? { id: contact.id, name: [contact.firstName, contact.lastName].filter(Boolean).join(' ') || contact.email } : null,
    locked: !can(ctx, 'manage_surveys'),
    user: publicUser(ctx),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_surveys');
  await requireFeature(request, 'customerSatisfactionSurveys/enabled', ctx);
  const id = parseRouteId(params.id);
  if (!id) throw new Response('Not Found', { status: 404 });
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id, id };
  if (intent === 'feature' || intent === 'unfeature') {
    if (!(await setReviewFeatured({ ...who, isFeatured: intent === 'feature' }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(`/reviews/${id}`, { type: 'info', text: intent === 'feature' ? 'Added to testimonials' : 'Removed from testimonials' });
  }
  if (intent !== 'reply') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: ReplySchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const result = await replyToReview({ ...who, reply: submission.value.reply });
  if (!result) throw new Response('Not Found', { status: 404 });
  if (result.replyError) return redirectWithToast(`/reviews/${id}`, { type: 'error', text: result.replyError });
  return redirectWithToast(`/reviews/${id}`, 'Reply Sent');
}

export const handle = { breadcrumb: (d: { review: { reviewerName: string } } | undefined) => (d ? d.review.reviewerName || 'Review' : null) };

export default function ReviewPage() {
  const { review, source, contact, conversationId, locked, user } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ id: `reply-${review.id}`, lastResult, defaultValue: { reply: review.replyText ?? '' }, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  return (
    <section className="page stack">
      <header className="row wrap">
        <h1>Review by {review.reviewerName || 'Anonymous'}</h1>
        <div className="spacer" />
        <Form method="post">
          <button type="submit" className="btn" name="intent" value={review.isFeatured ? 'unfeature' : 'feature'} disabled={locked} title={locked ? ROLE_LOCKED_MESSAGE : undefined} data-testid="feature-toggle">
            {review.isFeatured ? 'Remove from testimonials' : 'Feature in testimonials'}
          </button>
        </Form>
      </header>
      <div className="card stack">
        <p aria-label={`${review.rating} out of 5 stars`} className="review-stars" data-testid="review-rating">
          {'★'.repeat(review.rating) + '☆'.repeat(5 - review.rating)}
        </p>
        {review.text ? <blockquote data-testid="review-text">{review.text}</blockquote> : <p className="muted">No text, only a rating.</p>}
        <p className="muted">
          {formatDateTime(review.reviewedAt, user)} · {source.name} ({SOURCE_KIND_LABELS[source.kind as ReviewSourceKind] ?? source.kind})
          {source.reviewUrl ? (
            <>
              {' · '}
              <a href={source.reviewUrl}>Open the profile</a>
            </>
          ) : null}
        </p>
        <p>
          Contact:{' '}
          {contact ? (
            <Link to={`/customers/${contact.id}`} data-testid="review-contact">
              {contact.name}
            </Link>
          ) : (
            <span className="muted">not known</span>
          )}
        </p>
        {conversationId ? (
          <p>
            Conversation:{' '}
            <Link to={`/inbox/${conversationId}`} data-testid="review-conversation">
              #{conversationId}
            </Link>{' '}
            <span className="muted">(opened by a workflow for the team)</span>
          </p>
        ) : null}
      </div>
      <Form method="post" {...getFormProps(form)} className="card stack" aria-label="Reply">
        <h2>{review.replyText ? 'Your reply' : 'Reply'}</h2>
        {review.replyError ? (
          <p className="field-error" role="alert" data-testid="reply-error">
            Not posted to {source.name}: {review.replyError}
          </p>
        ) : review.repliedAt ? (
          <p className="muted" data-testid="reply-status">
            Replied {formatDateTime(review.repliedAt, user)}
            {source.postsReplies ? ` · posted to ${source.name}` : ''}
          </p>
        ) : null}
        {source.notPosted ? (
          <p className="muted" data-testid="reply-not-posted">
            {source.notPosted}
          </p>
        ) : null}
        <TextareaField label={source.postsReplies ? `Reply (posted publicly on ${source.name})` : 'Reply'} field={fields.reply} rows={5} maxLength={4000} disabled={locked} />
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="row">
          <button type="submit" className="btn btn-primary" name="intent" value="reply" disabled={locked} title={locked ? ROLE_LOCKED_MESSAGE : undefined}>
            {review.replyText ? 'Update reply' : 'Send reply'}
          </button>
        </div>
      </Form>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle(d ? `Review by ${d.review.reviewerName}` : 'Review', 'Reviews') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}

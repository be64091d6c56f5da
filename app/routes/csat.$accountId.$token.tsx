import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { commentOnRating, findCsatRating, rateConversation } from '~/models/csat/csat.server';
import { CSAT_DEFAULTS, RATING_GLYPHS, RATING_LABELS } from '~/models/csat/constants';
import { CsatCommentSchema } from '~/models/csat/schemas';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { requireAccount } from '~/utils/tenant.server';
import surveyStyles from '../styles/survey.css?url';

/**
 * The rating page of a customer-satisfaction request (ADR 063), no sign-in and no script: `?r=N` (a link of the email
 * or of the chat message) records the rating and redirects; a rating below the survey's threshold asks for a comment
 * when comments are on; then the finish text.
 */

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: surveyStyles }];
export const handle = { hydrate: false };

async function load(request: Request, params: LoaderFunctionArgs['params']) {
  const account = await requireAccount(request);
  if (params.accountId !== String(account.id)) throw new Response('Not Found', { status: 404 });
  await requirePlanFeature({ accountId: account.id, key: 'customerSatisfactionSurveys/emailSurveys', page: true });
  const found = await findCsatRating({ accountId: account.id, token: params.token ?? '' });
  if (!found) throw new Response('This link is not valid.', { status: 404 });
  return { account, ...found };
}

function pageOf(l: Awaited<ReturnType<typeof load>>, errors: string[] = [], typed = '') {
  const s = l.survey;
  const rating = l.rating.rating;
  const threshold = s?.commentEnabledBelow ?? CSAT_DEFAULTS.commentEnabledBelow;
  const wantsComment = !!s && (s.kind === 'chat' ? s.commentEnabled : s.commentEnabled && rating !== null && rating < threshold);
  const type: 'star' | 'emoji' = s?.ratingsType === 'emoji' ? 'emoji' : 'star';
  return {
    path: `/csat/${l.account.id}/${l.rating.token}`,
    heading: s?.heading || s?.subject || 'How did we do?',
    subHeading: s?.subHeading ?? '',
    type,
    rating,
    comment: l.rating.comment,
    askComment: rating !== null && !l.rating.comment && wantsComment,
    commentTitle: s?.commentTitle || CSAT_DEFAULTS.commentTitle,
    finishText: s?.finishText || CSAT_DEFAULTS.finishText,
    errors,
    typed,
  };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const l = await load(request, params);
  const given = new URL(request.url).searchParams.get('r');
  if (given !== null) {
    await enforceRateLimit(`csat:${clientIp(request)}`, { limit: 120, windowMs: 60_000 });
    const n = Number(given);
    if (!Number.isInteger(n) || n < 1 || n > 5) throw new Response('Choose a rating from 1 to 5.', { status: 400 });
    await rateConversation({ accountId: l.account.id, token: l.rating.token, rating: n });
    throw redirect(pageOf(l).path);
  }
  return pageOf(l);
}

export async function action({ request, params }: ActionFunctionArgs) {
  const l = await load(request, params);
  await enforceRateLimit(`csat:${clientIp(request)}`, { limit: 60, windowMs: 60_000 });
  const form = await request.formData();
  const intent = form.get('intent');
  if (intent === 'rate') {
    const n = Number(form.get('rating'));
    if (!Number.isInteger(n) || n < 1 || n > 5) return data(pageOf(l, ['Choose a rating from 1 to 5']), { status: 400 });
    await rateConversation({ accountId: l.account.id, token: l.rating.token, rating: n });
    return redirect(pageOf(l).path);
  }
  if (intent !== 'comment') throw new Response('Unknown action', { status: 400 });
  const parsed = CsatCommentSchema.safeParse({ comment: form.get('comment') ?? '' });
  if (!parsed.success) return data(pageOf(l, parsed.error.issues.map((i) => i.message), String(form.get('comment') ?? '')), { status: 400 });
  await commentOnRating({ accountId: l.account.id, token: l.rating.token, comment: parsed.data.comment });
  return redirect(pageOf(l).path);
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: d?.heading ?? 'Rate us' }, { name: 'robots', content: 'noindex' }];

export default function RatePage() {
  const loaded = useLoaderData<typeof loader>();
  const acted = useActionData<typeof action>();
  const p = acted ?? loaded;
  return (
    <div className="sv">
      <header className="sv-header">
        <h1>{p.heading}</h1>
        {p.subHeading ? <p className="sv-sub">{p.subHeading}</p> : null}
      </header>
      <main id="main" className="sv-main">
        {p.rating === null ? (
          <Form method="post" reloadDocument className="sv-card">
            <input type="hidden" name="intent" value="rate" />
            <fieldset className="sv-q">
              <legend>Rate this conversation</legend>
              <div className="sv-scale">
                {[1, 2, 3, 4, 5].map((n) => (
                  <button key={n} type="submit" name="rating" value={n} className="sv-btn" aria-label={RATING_LABELS[p.type][n - 1]}>
                    {RATING_GLYPHS[p.type][n - 1]}
                  </button>
                ))}
              </div>
            </fieldset>
            {p.errors.length ? <p className="form-error" role="alert">{p.errors[0]}</p> : null}
          </Form>
        ) : p.askComment ? (
          <Form method="post" reloadDocument className="sv-card stack" data-testid="csat-comment">
            <p>
              You rated us <strong>{RATING_LABELS[p.type][p.rating - 1]}</strong>.
            </p>
            <label htmlFor="comment">{p.commentTitle}</label>
            <textarea id="comment" name="comment" rows={4} defaultValue={p.typed} aria-invalid={p.errors.length > 0 || undefined} aria-describedby={p.errors.length ? 'comment-error' : undefined} />
            {p.errors.length ? (
              <p className="form-error" id="comment-error" role="alert">
                {p.errors[0]}
              </p>
            ) : null}
            <button type="submit" name="intent" value="comment" className="sv-btn">
              Send
            </button>
          </Form>
        ) : (
          <div className="sv-card sv-end" role="status" data-testid="csat-done">
            <h2>{p.finishText}</h2>
            <p>
              You rated us <strong>{RATING_LABELS[p.type][p.rating - 1]}</strong>.
            </p>
          </div>
        )}
      </main>
    </div>
  );
}

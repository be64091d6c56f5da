import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { listTestimonials } from '~/models/reviews/reviews.server';
import { pageTitle } from '~/utils/format';
import { requireAccount } from '~/utils/tenant.server';

/** The testimonials snippet (ADR 068): the reviews an agent featured, as a small page for an <iframe>, no script. */
export async function loader({ request }: LoaderFunctionArgs) {
  const account = await requireAccount(request);
  await requirePlanFeature({ accountId: account.id, key: 'customerSatisfactionSurveys/enabled', page: true });
  const reviews = await listTestimonials({ accountId: account.id });
  return { company: account.name, reviews: reviews.map((r) => ({ id: r.id, name: r.reviewerName, rating: r.rating, text: r.text })) };
}

export const headers: HeadersFunction = () => ({ 'Content-Security-Policy': 'frame-ancestors *', 'Cache-Control': 'public, max-age=300' });

export const handle = { hydrate: false };

export default function Testimonials() {
  const { company, reviews } = useLoaderData<typeof loader>();
  return (
    <main id="main" className="testimonials stack">
      <h1 className="visually-hidden">What customers say about {company}</h1>
      {reviews.length === 0 ? <p className="muted">No testimonials yet.</p> : null}
      {reviews.map((r) => (
        <figure key={r.id} className="card" data-testid="testimonial">
          <p aria-label={`${r.rating} out of 5 stars`}>{'★'.repeat(r.rating) + '☆'.repeat(5 - r.rating)}</p>
          {r.text ? <blockquote>{r.text}</blockquote> : null}
          <figcaption>— {r.name}</figcaption>
        </figure>
      ))}
    </main>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle('Testimonials', d?.company) }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}

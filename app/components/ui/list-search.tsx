import { Form, Link } from '@remix-run/react';

/**
 * The search box above a settings list: a GET form on the list's own URL, so a search is a bookmarkable `?q=`
 * and works without JavaScript. Submitting resets the page to the first one.
 */
export function ListSearch({ q, label, action }: { q: string; label: string; action: string }) {
  return (
    <Form method="get" action={action} className="search-form row" role="search" aria-label={label}>
      <input type="search" name="q" defaultValue={q} aria-label={label} placeholder={label} maxLength={100} />
      <button type="submit" className="btn">
        Search
      </button>
      {q ? (
        <Link to={action} className="btn btn-link">
          Clear
        </Link>
      ) : null}
    </Form>
  );
}

import { Form, Link } from '@remix-run/react';
import type { ReactNode } from 'react';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { Pager } from '~/components/ui/pager';
import { SortHeader } from '~/components/ui/sort-header';
import { ROLE_LOCKED_MESSAGE } from '~/models/shell/denied-messages';
import { TagPills } from './tag-pills';
import { Star } from 'lucide-react';

export type RecordColumn<R> = { key: string; label: string; sortable?: boolean; cell: (row: R) => ReactNode };

/**
 * A CRM list (contacts or companies, whole or one segment): GET filters (text and tag), one selection form for
 * bulk tag and bulk delete (checkboxes point at it with `form=`), a favourite toggle per row (buttons of one
 * favourites form, `form=`; the star drawn once and shown with `<use>`), sortable columns
 * and the pager. Everything works without JavaScript.
 */
export function RecordList<R extends { id: number; isFavourite: boolean; tags: { id: number; name: string; color: string }[] }>(props: {
  id: string;
  action: string;
  /** Where the selection posts (an index route needs `?index`); defaults to `action`. */
  postAction?: string;
  filters: { q: string; tag: number | null };
  tagOptions: { id: number; name: string }[];
  list: { rows: R[]; total: number; page: number; pageSize: number };
  columns: RecordColumn<R>[];
  locked: boolean;
  plural: string;
  formError?: string | null;
}) {
  const formId = `${props.id}-selection`;
  const favouritesId = `${props.id}-favourites`;
  const starId = `${props.id}-star`;
  return (
    <div className="stack">
      {/* The star, once: each row's button shows it with <use> (its fill, on or off, is inherited). */}
      <svg aria-hidden="true" width={0} height={0} style={{ position: 'absolute' }}>
        <symbol id={starId} viewBox="0 0 24 24">
          <Star fill="inherit" />
        </symbol>
      </svg>
      {props.locked ? null : (
        <Form method="post" action={props.postAction ?? props.action} id={favouritesId}>
          <input type="hidden" name="intent" value="favourite" />
        </Form>
      )}
      <Form method="get" action={props.action} className="row" role="search" aria-label={`Filter ${props.plural}`}>
        <input type="search" name="q" defaultValue={props.filters.q} aria-label={`Search ${props.plural}`} placeholder={`Search ${props.plural}`} maxLength={100} />
        <select name="tag" defaultValue={props.filters.tag ?? ''} aria-label="Filter by tag">
          <option value="">All tags</option>
          {props.tagOptions.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
        <button type="submit" className="btn">
          Filter
        </button>
        {props.filters.q || props.filters.tag ? (
          <Link to={props.action} className="btn btn-link">
            Clear
          </Link>
        ) : null}
      </Form>
      {props.locked ? null : (
        <Form method="post" action={props.postAction ?? props.action} id={formId} className="row" aria-label="Selected rows">
          <select name="tagId" aria-label="Tag to add" defaultValue="">
            <option value="">Choose a tag</option>
            {props.tagOptions.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
          <button type="submit" className="btn" name="intent" value="tag">
            Tag selected
          </button>
          <DeleteConfirm id={`${props.id}-bulk`} form={formId} label="Delete selected" disabled={props.locked} disabledReason={ROLE_LOCKED_MESSAGE} />
          {props.formError ? (
            <p className="field-error" role="alert">
              {props.formError}
            </p>
          ) : null}
        </Form>
      )}
      {props.list.total === 0 ? (
        <p className="muted" data-testid="empty">
          {props.filters.q || props.filters.tag ? `No ${props.plural} match your filters.` : `No ${props.plural} yet.`}
        </p>
      ) : (
        <table className="table" data-testid={props.id}>
          <thead>
            <tr>
              <th aria-label="Select" />
              <th aria-label="Favourite" />
              {props.columns.map((c) => (c.sortable ? <SortHeader key={c.key} column={c.key} label={c.label} /> : <th key={c.key}>{c.label}</th>))}
              <th>Tags</th>
            </tr>
          </thead>
          <tbody>
            {props.list.rows.map((r) => (
              <tr key={r.id} data-row-id={r.id}>
                <td>
                  <input type="checkbox" name="ids" value={r.id} form={formId} aria-label={`Select ${r.id}`} disabled={props.locked} />
                </td>
                <td>
                  {/* One favourites form for the whole list (below): each row's button names its row and the new
                      state, so 50 rows carry no form or hidden inputs of their own (ADR 133). */}
                  <button
                    type="submit"
                    form={favouritesId}
                    className="btn btn-link"
                    name="favourite"
                    value={`${r.id}:${r.isFavourite ? 'false' : 'true'}`}
                    disabled={props.locked}
                    aria-label={r.isFavourite ? 'Remove from favourites' : 'Add to favourites'}
                    aria-pressed={r.isFavourite}
                  >
                    <svg aria-hidden="true" width={16} height={16} fill={r.isFavourite ? 'currentColor' : 'none'}>
                      <use href={`#${starId}`} />
                    </svg>
                  </button>
                </td>
                {props.columns.map((c) => (
                  <td key={c.key}>{c.cell(r)}</td>
                ))}
                <td>
                  <TagPills tags={r.tags} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={props.list.page} pageSize={props.list.pageSize} total={props.list.total} />
    </div>
  );
}

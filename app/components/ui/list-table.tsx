import type { ReactNode } from 'react';
import { Pager } from './pager';

export type ListColumn<R> = {
  header: string;
  cell: (row: R) => ReactNode;
  /** A header read only by screen readers (an actions column). */ hiddenHeader?: boolean;
};

/**
 * The one list body of a list page: the empty state, or a table of the page's rows, and the pager below.
 * Settings lists, failed automations, contact forms and the knowledge base's articles share it.
 */
export function ListTable<R extends { id: number | string }>(props: {
  list: { rows: R[]; total: number; page: number; pageSize: number };
  columns: ListColumn<R>[];
  empty: ReactNode;
  testId: string;
  rowTestId?: (row: R) => string;
}) {
  return (
    <>
      {props.list.total === 0 ? (
        <p className="muted" data-testid="empty">
          {props.empty}
        </p>
      ) : (
        <table className="table" data-testid={props.testId}>
          <TableHead headers={props.columns.map((c) => (c.hiddenHeader ? { hidden: c.header } : c.header))} />
          <tbody>
            {props.list.rows.map((r) => (
              <tr key={r.id} data-testid={props.rowTestId?.(r)}>
                {props.columns.map((c) => (
                  <td key={c.header}>{c.cell(r)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={props.list.page} pageSize={props.list.pageSize} total={props.list.total} />
    </>
  );
}

/** A table's header row: plain headers, and `{ hidden }` ones (an actions column) read only by screen readers. */
export function TableHead({ headers }: { headers: (string | { hidden: string })[] }) {
  return (
    <thead>
      <tr>
        {headers.map((h) =>
          typeof h === 'string' ? (
            <th key={h}>{h}</th>
          ) : (
            <th key={h.hidden}>
              <span className="visually-hidden">{h.hidden}</span>
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}

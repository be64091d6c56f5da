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
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th key={c.header}>{c.hiddenHeader ? <span className="visually-hidden">{c.header}</span> : c.header}</th>
              ))}
            </tr>
          </thead>
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

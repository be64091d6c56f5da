import { Link } from '@remix-run/react';
import type { ReactNode } from 'react';
import { DeniedBadge } from './badges';
import { ListSearch } from './list-search';
import { Pager } from './pager';
import { SettingsPage } from './settings-page';

export type ListColumn<R> = { header: string; cell: (row: R) => ReactNode };

/**
 * The list page of a settings area: the settings layout, a create link to `{basePath}/new`, an optional
 * `?q=` search, an empty state, a table whose first column links to `{basePath}/{id}`, and the pager.
 */
export function SettingsList<R extends { id: number }>(props: {
  basePath: string;
  title: string;
  subHeader: ReactNode;
  createLabel: string;
  /** Lower-case plural for the empty state: "canned responses". */
  plural: string;
  locked: boolean;
  list: { rows: R[]; total: number; page: number; pageSize: number };
  columns: [ListColumn<R>, ...ListColumn<R>[]];
  q?: string;
  testId: string;
  children?: ReactNode;
}) {
  const [first, ...rest] = props.columns;
  return (
    <SettingsPage
      title={props.title}
      subHeader={props.subHeader}
      learnMore="/help-center"
      locked={props.locked}
      actions={
        <Link to={`${props.basePath}/new`} className="btn btn-primary">
          {props.locked ? <DeniedBadge kind="role" /> : null} {props.createLabel}
        </Link>
      }
    >
      {props.children}
      {props.q !== undefined ? <ListSearch q={props.q} label={`Search ${props.plural}`} action={props.basePath} /> : null}
      {props.list.total === 0 ? (
        <p className="muted" data-testid="empty">
          {props.q ? `No ${props.plural} match your search.` : `No ${props.plural} yet.`}
        </p>
      ) : (
        <table className="table" data-testid={props.testId}>
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th key={c.header}>{c.header}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.list.rows.map((r) => (
              <tr key={r.id}>
                <td>
                  <Link to={`${props.basePath}/${r.id}`}>{first.cell(r)}</Link>
                </td>
                {rest.map((c) => (
                  <td key={c.header}>{c.cell(r)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={props.list.page} pageSize={props.list.pageSize} total={props.list.total} />
    </SettingsPage>
  );
}

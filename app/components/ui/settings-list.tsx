import { Link } from '@remix-run/react';
import type { ReactNode } from 'react';
import { DeniedBadge } from './badges';
import { ListSearch } from './list-search';
import { ListTable, type ListColumn } from './list-table';
import { SettingsPage } from './settings-page';

export type { ListColumn };

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
      <ListTable
        list={props.list}
        columns={[{ ...first, cell: (r: R) => <Link to={`${props.basePath}/${r.id}`}>{first.cell(r)}</Link> }, ...rest]}
        empty={props.q ? `No ${props.plural} match your search.` : `No ${props.plural} yet.`}
        testId={props.testId}
      />
    </SettingsPage>
  );
}

import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { ListSearch } from '~/components/ui/list-search';
import { Pager, readPage } from '~/components/ui/pager';
import { SettingsPage } from '~/components/ui/settings-page';
import { TAG_COLOUR_HEX, type TagColour } from '~/models/productivity/constants';
import { pageTags } from '~/models/productivity/tags.server';
import { pageTitle } from '~/utils/format';
import { can, requireUser } from '~/utils/session.server';

/** Everyone may see the account's tags; manage_tags changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const url = new URL(request.url);
  const q = url.searchParams.get('q')?.trim() ?? '';
  const tags = await pageTags({ accountId: ctx.account.id, q, page: readPage(url) });
  return {
    q,
    tags: { ...tags, rows: tags.rows.map((t) => ({ id: t.id, name: t.name, color: t.color, conversationCount: t.conversationCount })) },
    locked: !can(ctx, 'manage_tags'),
  };
}

export default function Tags() {
  const { q, tags, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Tags"
      subHeader="Label conversations so that agents can find, filter and report on them."
      learnMore="/help-center"
      locked={locked}
      actions={
        <Link to="/settings/tags/new" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Create Tag
        </Link>
      }
    >
      <ListSearch q={q} label="Search tags" action="/settings/tags" />
      {tags.total === 0 ? (
        <p className="muted" data-testid="empty">
          {q ? 'No tags match your search.' : 'No tags yet.'}
        </p>
      ) : (
        <table className="table" data-testid="tags">
          <thead>
            <tr>
              <th>Name</th>
              <th>Colour</th>
              <th>Conversations</th>
            </tr>
          </thead>
          <tbody>
            {tags.rows.map((t) => (
              <tr key={t.id}>
                <td>
                  <Link to={`/settings/tags/${t.id}`}>{t.name}</Link>
                </td>
                <td>
                  <TagSwatch color={t.color} /> {t.color}
                </td>
                <td>{t.conversationCount}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={tags.page} pageSize={tags.pageSize} total={tags.total} />
    </SettingsPage>
  );
}

function TagSwatch({ color }: { color: string }) {
  const hex = TAG_COLOUR_HEX[color as TagColour] ?? '#767676';
  return <span aria-hidden="true" style={{ display: 'inline-block', width: '.8rem', height: '.8rem', borderRadius: '50%', background: hex, verticalAlign: 'middle' }} />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Tags', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}

import { useLoaderData } from '@remix-run/react';

/** The inbox list's 50 rows, built once, in memory: what a page costs with no database and no session. */
const ROWS = Array.from({ length: 50 }, (_, i) => ({
  id: 1000 + i,
  subject: `Refund for order #${4000 + i}: the parcel arrived broken`,
  preview: 'Hello, about my refund: the parcel is broken since order 1234 and I would like to know what to do next.',
  contact: `Cara Customer ${i}`,
  email: `cara${i}@example.test`,
  inbox: i % 2 ? 'Support' : 'Billing',
  assignee: i % 3 ? 'Ari Agent' : '',
  priority: ['default', 'low', 'medium', 'high'][i % 4],
  status: 'open',
  tags: i % 2 ? [{ id: 1, name: 'vip', color: '#c00' }] : [],
  lastMessageAt: new Date(Date.UTC(2026, 10, 1, 12, i)),
  createdAt: new Date(Date.UTC(2026, 9, 1, 12, i)),
}));

export async function loader() {
  return { rows: ROWS, counts: { open: 812, pending: 40, snoozed: 3, resolved: 9120 } };
}

const fmt = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

export default function Inbox() {
  const { rows, counts } = useLoaderData<typeof loader>();
  return (
    <div className="inbox">
      <aside>
        <h2>Status</h2>
        <ul>
          {Object.entries(counts).map(([s, n]) => (
            <li key={s}>
              <a href={`/?status=${s}`}>
                {s} <span>{n}</span>
              </a>
            </li>
          ))}
        </ul>
      </aside>
      <main>
        <h1>Inbox</h1>
        <form method="post">
          <table>
            <thead>
              <tr>
                <th />
                <th>Contact</th>
                <th>Conversation</th>
                <th>Inbox</th>
                <th>Assignee</th>
                <th>Priority</th>
                <th>Tags</th>
                <th>Status</th>
                <th>Last message</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td>
                    <input type="checkbox" name="ids" value={r.id} aria-label={`Select #${r.id}`} />
                  </td>
                  <td title={r.email}>{r.contact}</td>
                  <td>
                    <a href={`/inbox/${r.id}`}>{r.subject}</a>
                    <span>{r.preview}</span>
                  </td>
                  <td>{r.inbox}</td>
                  <td>{r.assignee || '—'}</td>
                  <td>
                    <span className={`pill pill-${r.priority}`}>{r.priority}</span>
                  </td>
                  <td>
                    {r.tags.map((t) => (
                      <span key={t.id} style={{ background: t.color }}>
                        {t.name}
                      </span>
                    ))}
                  </td>
                  <td>{r.status}</td>
                  <td>{fmt(new Date(r.lastMessageAt))}</td>
                  <td>{fmt(new Date(r.createdAt))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </form>
      </main>
    </div>
  );
}

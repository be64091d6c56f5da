import { Form, Link } from '@remix-run/react';
import { SettingsPage } from '~/components/ui/settings-page';

type Props = {
  kind: 'email' | 'chat';
  surveys: { id: number; subject: string; inboxes: string[]; ratingsType: string }[];
  results: { total: number; csat: number | null; rows: { key: string; ratings: number; average: number; satisfied: number; csat: number }[] };
  by: string;
  from: string;
  to: string;
};
const BY = [
  ['agent', 'Agent'],
  ['team', 'Team'],
  ['inbox', 'Inbox'],
  ['day', 'Day'],
  ['week', 'Week'],
  ['month', 'Month'],
] as const;

/** Settings → Customer Satisfaction → Email/Chat Survey: the surveys, and the account's CSAT over a period by agent, team, inbox, day, week or month. */
export function CsatList({ kind, surveys, results, by, from, to }: Props) {
  const base = `/settings/${kind}-survey`;
  const title = kind === 'email' ? 'Email Survey' : 'Chat Survey';
  return (
    <SettingsPage
      title={title}
      subHeader={kind === 'email' ? 'Customers rate each resolved email conversation from a one-click email.' : 'Customers rate each resolved chat in the messenger.'}
      learnMore="/help-center"
      actions={
        <Link to={`${base}/new`} className="btn btn-primary">
          Create {title}
        </Link>
      }
    >
      {surveys.length ? (
        <div className="table-wrap">
          <table className="table" data-testid="csat-surveys">
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Inboxes</th>
                <th scope="col">Rating</th>
              </tr>
            </thead>
            <tbody>
              {surveys.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Link to={`${base}/${s.id}`}>{s.subject}</Link>
                  </td>
                  <td>{s.inboxes.join(', ')}</td>
                  <td>{s.ratingsType === 'emoji' ? 'Emoji' : 'Stars'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted">No {title.toLowerCase()} yet.</p>
      )}
      <section className="stack" aria-labelledby="csat-results-h" data-testid="csat-results">
        <h2 id="csat-results-h">Customer satisfaction (all ratings)</h2>
        <Form method="get" className="row wrap" aria-label="Period and grouping">
          <div className="field">
            <label htmlFor="csat-from">From</label>
            <input id="csat-from" type="date" name="from" defaultValue={from} />
          </div>
          <div className="field">
            <label htmlFor="csat-to">To</label>
            <input id="csat-to" type="date" name="to" defaultValue={to} />
          </div>
          <div className="field">
            <label htmlFor="csat-by">By</label>
            <select id="csat-by" name="by" defaultValue={by}>
              {BY.map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="btn">
            Apply
          </button>
        </Form>
        <p>
          CSAT <strong data-testid="csat-score">{results.csat === null ? '—' : `${results.csat}%`}</strong>{' '}
          <span className="muted">(share of ratings of 4 or 5, over {results.total} ratings)</span>
        </p>
        {results.rows.length ? (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">{BY.find(([v]) => v === by)?.[1]}</th>
                  <th scope="col">Ratings</th>
                  <th scope="col">Average</th>
                  <th scope="col">CSAT</th>
                </tr>
              </thead>
              <tbody>
                {results.rows.map((r) => (
                  <tr key={r.key}>
                    <td>{r.key}</td>
                    <td>{r.ratings}</td>
                    <td>{r.average}</td>
                    <td>{r.csat}%</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
    </SettingsPage>
  );
}

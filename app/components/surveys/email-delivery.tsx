import { Pager } from '~/components/ui/pager';
import { formatDateTime, type DatePrefs } from '~/utils/format';

export const DELIVERY_PAGE_SIZE = 50;

const STATUS_TEXT: Record<string, string> = {
  queued: 'Queued',
  sending: 'Sending',
  sent: 'Sent',
  skipped: 'Skipped (unsubscribed or bounced)',
  failed: 'Failed',
  bounced: 'Bounced',
  opened: 'Opened',
  responded: 'Responded',
};

type Delivery = {
  stats: { by: Record<string, number>; delivered: number; responseRate: number; total: number };
  page: number;
  recipients: { id: number; email: string; name: string; status: string; sentAt: Date | string | null; openedAt: Date | string | null; respondedAt: Date | string | null }[];
};

/** An email survey's delivery on its results page (issue 15): counts per status, the response rate, every recipient newest first, 50 a page. */
export function EmailDelivery({ delivery, user }: { delivery: Delivery; user: DatePrefs }) {
  const { by, delivered, responseRate } = delivery.stats;
  return (
    <section className="card stack" aria-labelledby="delivery-h" data-testid="email-delivery" id="delivery">
      <h2 id="delivery-h">Email delivery</h2>
      <p>
        Response rate <strong data-testid="response-rate">{Math.round(responseRate * 1000) / 10}%</strong>{' '}
        <span className="muted">
          ({by.responded ?? 0} responded of {delivered} delivered)
        </span>
      </p>
      <ul className="row wrap" aria-label="Recipients by status">
        {Object.keys(STATUS_TEXT)
          .filter((k) => by[k])
          .map((k) => (
            <li key={k} className="pill">
              {STATUS_TEXT[k]}: {by[k]}
            </li>
          ))}
      </ul>
      {delivery.recipients.length ? (
        <div className="table-wrap">
          <table className="table delivery-table">
            <caption className="muted">
              Recipients, newest first{delivery.page > 1 ? ` (page ${delivery.page})` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Recipient</th>
                <th scope="col">Status</th>
                <th scope="col">Sent</th>
                <th scope="col">Responded</th>
              </tr>
            </thead>
            <tbody>
              {delivery.recipients.map((r) => (
                <tr key={r.id} data-testid="recipient-row">
                  <td>{r.name ? `${r.name} <${r.email}>` : r.email}</td>
                  <td>{STATUS_TEXT[r.status] ?? r.status}</td>
                  <td>{formatDateTime(r.sentAt, user)}</td>
                  <td>{formatDateTime(r.respondedAt, user)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={delivery.page} pageSize={DELIVERY_PAGE_SIZE} total={delivery.stats.total} params={{ q: 'delivery' }} hash="delivery" />
        </div>
      ) : (
        <p className="muted">Nothing sent yet.</p>
      )}
    </section>
  );
}

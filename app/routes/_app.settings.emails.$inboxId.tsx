import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { CopyButton } from '~/components/ui/copy-button';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import type { z } from 'zod';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { InboxBusinessHoursForm } from '~/components/automation/inbox-business-hours';
import { ChannelHealthPanel } from '~/components/channel-health';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { getChannelHealth, PART_LABELS } from '~/models/channels/health.server';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import {
  checkMailServer,
  clearSmtpSettings,
  createEmailInbox,
  deleteEmailInbox,
  describeEmailInbox,
  EmailInboxInputError,
  getEmailInbox,
  setImapSettings,
  setSmtpSettings,
  trustServerCertificate,
  updateEmailInbox,
} from '~/models/email/email-inboxes.server';
import { businessHoursOptions, submitInboxBusinessHours } from '~/models/automation/business-hours.server';
import { deleteQuarantinedEmail, listQuarantinedEmails, retryQuarantinedEmail } from '~/models/email/quarantine.server';
import { sendForwardingCheck } from '~/models/email/outbound.server';
import { EMAIL_MODE_LABELS, EMAIL_MODES, INBOX_NAME_MAX, MAIL_SECURITY, MAIL_SECURITY_LABELS } from '~/models/email/form-constants';
import { EmailInboxSchema, ImapSettingsSchema, TrustFingerprintSchema, SmtpSettingsSchema } from '~/models/email/schemas';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { formatDateTime, pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, publicUser, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/emails';
const MODE_OPTIONS = EMAIL_MODES.map((m) => ({ value: m, label: EMAIL_MODE_LABELS[m] }));
const SECURITY_OPTIONS = MAIL_SECURITY.map((m) => ({ value: m, label: MAIL_SECURITY_LABELS[m] }));

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.inboxId);
  const inbox = id === 'new' ? null : await getEmailInbox({ accountId: ctx.account.id, id });
  if (inbox === undefined) throw new Response('Not Found', { status: 404 });
  const locked = !can(ctx, 'manage_emails');
  const described = inbox ? describeEmailInbox(inbox) : null;
  const health = inbox ? await getChannelHealth({ accountId: ctx.account.id, inboxId: inbox.id }) : [];
  return {
    user: publicUser(ctx),
    inbox: described,
    businessHoursId: inbox?.businessHoursId ?? null,
    businessHours: inbox ? await businessHoursOptions({ accountId: ctx.account.id }) : [],
    health: health
      .filter((h) => h.part === 'imap' || h.part === 'smtp')
      .map((h) => ({
        part: h.part,
        label: PART_LABELS[h.part],
        lastSuccessAt: h.lastSuccessAt,
        lastError: h.lastError,
        lastErrorAt: h.lastErrorAt,
        failingSince: h.failingSince,
        // What the admin compares with the server's own before trusting it (never the PEM: nothing to do with it here).
        certificate: h.offeredCertificate && h.failingSince ? { fingerprint: h.offeredCertificate.fingerprint, subject: h.offeredCertificate.subject, issuer: h.offeredCertificate.issuer, validTo: h.offeredCertificate.validTo } : null,
      })),
    quarantined: inbox && !locked ? await listQuarantinedEmails({ accountId: ctx.account.id, inboxId: inbox.id }) : [],
    // The endpoint's secret is a credential: only those who may manage the inbox see it.
    http: inbox && !locked && described?.mode === 'http' ? { url: `${new URL(request.url).origin}/webhooks/email/${inbox.id}`, secret: inbox.secret ?? '' } : null,
    locked,
  };
}

type Intent = 'save' | 'imap' | 'smtp' | 'hours' | 'trust';

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_emails');
  const id = readEditorParam(params.inboxId);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  const notFound = () => new Response('Not Found', { status: 404 });
  const fail = (which: Intent, result: SubmissionResult<string[]>) => data({ intent: which, result }, { status: 400 });

  if (id !== 'new') {
    switch (intent) {
      case 'delete':
        if (!(await deleteEmailInbox({ ...who, id }))) throw notFound();
        return redirectWithToast(LIST, { type: 'info', text: 'Inbox Deleted' });
      case 'sendverificationmail': {
        try {
          if (!(await sendForwardingCheck({ accountId: ctx.account.id, id }))) throw notFound();
        } catch (err) {
          if (err instanceof Response) throw err;
          // The mail server said no (wrong SMTP settings, address refused): the page says so instead of failing.
          return redirectWithToast(`${LIST}/${id}`, { type: 'error', text: `The verification mail could not be sent: ${(err as Error).message}` });
        }
        return redirectWithToast(`${LIST}/${id}`, 'Invitation sent to your email for forwarding');
      }
      case 'hours': {
        const hours = await submitInboxBusinessHours({ ...who, inboxId: id, channelType: 'email', formData });
        if (hours.status === 'missing') throw notFound();
        if (hours.status === 'invalid') return fail('hours', hours.reply);
        return redirectWithToast(`${LIST}/${id}`, { type: 'info', text: 'Inbox Updated' });
      }
      case 'smtp-clear':
        if (!(await clearSmtpSettings({ ...who, id }))) throw notFound();
        return redirectWithToast(LIST, { type: 'info', text: 'Inbox Updated' });
      case 'imap': {
        const submission = parseWithZod(formData, { schema: ImapSettingsSchema });
        if (submission.status !== 'success') return fail('imap', submission.reply({ hideFields: ['password'] }));
        try {
          if (!(await setImapSettings({ ...who, id, input: submission.value }))) throw notFound();
        } catch (err) {
          if (err instanceof EmailInboxInputError) return fail('imap', submission.reply({ fieldErrors: { [err.field]: [err.message] }, hideFields: ['password'] }));
          throw err;
        }
        return afterServerSaved(ctx.account.id, id, 'imap');
      }
      case 'smtp': {
        const submission = parseWithZod(formData, { schema: SmtpSettingsSchema });
        if (submission.status !== 'success') return fail('smtp', submission.reply({ hideFields: ['password'] }));
        try {
          if (!(await setSmtpSettings({ ...who, id, input: submission.value }))) throw notFound();
        } catch (err) {
          if (err instanceof EmailInboxInputError) return fail('smtp', submission.reply({ fieldErrors: { [err.field]: [err.message] }, hideFields: ['password'] }));
          throw err;
        }
        return afterServerSaved(ctx.account.id, id, 'smtp');
      }
      case 'imap-trust':
      case 'smtp-trust': {
        const part = intent === 'imap-trust' ? 'imap' : 'smtp';
        const submission = parseWithZod(formData, { schema: TrustFingerprintSchema });
        if (submission.status !== 'success') return fail('trust', submission.reply());
        const trusted = await trustServerCertificate({ ...who, id, part, fingerprint: submission.value.fingerprint });
        if (trusted === undefined) throw notFound();
        if (!trusted) return fail('trust', submission.reply({ fieldErrors: { fingerprint: ['This is not the fingerprint of the certificate the server offered'] } }));
        return afterServerSaved(ctx.account.id, id, part);
      }
      case 'quarantine-retry':
      case 'quarantine-delete': {
        const qid = Number(formData.get('quarantineId'));
        if (!Number.isInteger(qid) || qid < 1 || qid > 2_147_483_647) throw new Response('Bad Request', { status: 400 });
        if (intent === 'quarantine-delete') {
          if (!(await deleteQuarantinedEmail({ accountId: ctx.account.id, inboxId: id, id: qid }))) throw notFound();
          return redirectWithToast(`${LIST}/${id}`, { type: 'info', text: 'Quarantined mail deleted' });
        }
        const retried = await retryQuarantinedEmail({ accountId: ctx.account.id, inboxId: id, id: qid });
        if (!retried) throw notFound();
        return redirectWithToast(
          `${LIST}/${id}`,
          retried.ok ? 'The mail was stored' : { type: 'error', text: `The mail still cannot be stored: ${retried.reason}` },
        );
      }
    }
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });

  const submission = parseWithZod(formData, { schema: EmailInboxSchema });
  if (submission.status !== 'success') return fail('save', submission.reply());
  try {
    if (id === 'new') {
      const inbox = await createEmailInbox({ ...who, ...submission.value });
      return redirectWithToast(`${LIST}/${inbox.id}`, 'Inbox Created');
    }
    if (!(await updateEmailInbox({ ...who, id, ...submission.value }))) throw notFound();
    return redirectWithToast(LIST, { type: 'info', text: 'Inbox Updated' });
  } catch (err) {
    if (err instanceof EmailInboxInputError) return fail('save', submission.reply({ fieldErrors: { [err.field]: [err.message] } }));
    throw err;
  }
}

/**
 * After IMAP or SMTP settings are saved, the connection is tried before anything says "Updated": success goes
 * back to the list as before; a failure stays on the inbox's page, which shows the error (and the certificate
 * to trust, when that is the problem).
 */
async function afterServerSaved(accountId: number, id: number, part: 'imap' | 'smtp') {
  const result = await checkMailServer({ accountId, id, part });
  if (!result) throw new Response('Not Found', { status: 404 });
  const what = part === 'imap' ? 'the mailbox' : 'the mail server';
  if (result.ok) return redirectWithToast(LIST, { type: 'info', text: 'Inbox Updated' });
  return redirectWithToast(`${LIST}/${id}`, { type: 'error', text: `Inbox Updated, but Parley cannot reach ${what}: ${result.error}` });
}

export const handle = {
  breadcrumb: (loaderData: { inbox: { name: string } | null } | undefined) => (loaderData ? (loaderData.inbox?.name ?? 'Create Inbox') : null),
};

type LoaderData = ReturnType<typeof useLoaderData<typeof loader>>;

export default function EmailInboxPage() {
  const loaderData = useLoaderData<typeof loader>();
  // A fresh set of forms per inbox, so that moving between inboxes carries nothing typed over.
  return <EmailInboxEditor key={loaderData.inbox?.id ?? 'new'} {...loaderData} />;
}

function useResult(intent: Intent) {
  const actionData = useActionData<typeof action>();
  return actionData && 'intent' in actionData && actionData.intent === intent ? actionData.result : undefined;
}

function EmailInboxEditor({ user, inbox, http, locked, businessHours, businessHoursId, health, quarantined }: LoaderData) {
  const hoursResult = useResult('hours');
  const [form, fields] = useForm({
    id: `email-inbox-${inbox?.id ?? 'new'}`,
    lastResult: useResult('save'),
    defaultValue: inbox ? { name: inbox.name, email: inbox.email ?? '', mode: inbox.mode } : { mode: 'forwarding' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <>
      <SettingsPage
        title={inbox ? inbox.name : 'Create Inbox'}
        subHeader="An email inbox turns mail to your support address into conversations; replies leave from it. Deleting an inbox deletes its conversations."
        learnMore="/help-center"
        locked={locked}
        actions={inbox ? <DeleteConfirm id={`inbox-${inbox.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
      >
        <Form method="post" {...getFormProps(form)}>
          <fieldset disabled={locked} className="stack">
            <Field label="Inbox Name" field={fields.name} autoComplete="off" hint={`At most ${INBOX_NAME_MAX} characters`} />
            <Field label="Support address" type="email" field={fields.email} autoComplete="off" hint="The address your customers write to, e.g. support@yourcompany.com" />
            <SelectField label="How mail reaches Parley" field={fields.mode} options={MODE_OPTIONS} />
          </fieldset>
          <ErrorList id={form.errorId} errors={form.errors} />
          <FormActions cancelTo={LIST} submitLabel={inbox ? 'Update' : 'Create'} intent="save" locked={locked} />
        </Form>
      </SettingsPage>
      {inbox && health.length > 0 ? (
        <ChannelHealthPanel rows={health} prefs={user}>
          {inbox.oauth?.revoked ? <Reconnect inboxId={inbox.id} oauth={inbox.oauth} locked={locked} /> : null}
          {health.map((h) =>
            h.certificate && (h.part === 'imap' || h.part === 'smtp') ? <TrustCertificate key={h.part} part={h.part} certificate={h.certificate} locked={locked} /> : null,
          )}
        </ChannelHealthPanel>
      ) : null}
      {inbox?.oauth && !(inbox.oauth.revoked && health.length > 0) ? (
        <section className="settings-page" aria-labelledby="oauth-title" data-testid="oauth-grant">
          <header>
            <h2 id="oauth-title">Connected account</h2>
          </header>
          <div className="card stack">
            <Reconnect inboxId={inbox.id} oauth={inbox.oauth} locked={locked} />
          </div>
        </section>
      ) : null}
      {inbox && quarantined.length > 0 ? <Quarantine inboxId={inbox.id} items={quarantined} user={user} locked={locked} /> : null}
      {inbox ? <Receiving inbox={inbox} http={http} locked={locked} user={user} /> : null}
      {inbox ? <SmtpSettings inbox={inbox} locked={locked} /> : null}
      {inbox ? (
        <InboxBusinessHoursForm inboxId={inbox.id} current={businessHoursId} options={businessHours} locked={locked} cancelTo={LIST} lastResult={hoursResult} />
      ) : null}
    </>
  );
}

/**
 * A mailbox connected over OAuth (ADR 158): whose it is and, when the provider no longer honours the grant, why, with
 * the way back: consent again (a plain form post to the connect route, which keeps this inbox).
 */
function Reconnect({ inboxId, oauth, locked }: { inboxId: number; oauth: NonNullable<NonNullable<LoaderData['inbox']>['oauth']>; locked: boolean }) {
  const label = oauth.provider === 'google' ? 'Google' : 'Microsoft 365';
  return (
    <Form method="post" action={`/settings/emails/connect/${oauth.provider}`} className="stack" data-testid="oauth-reconnect">
      <p>
        {oauth.revoked ? (
          <>
            <span className="pill pill-off">Access revoked</span> {oauth.revokedReason ?? `${label} no longer accepts Parley's access to ${oauth.email}.`}
          </>
        ) : (
          <>
            Connected with {label} as <strong>{oauth.email}</strong>: Parley reads and sends with {label}&apos;s permission (OAuth), no password is stored.
          </>
        )}
      </p>
      <input type="hidden" name="inboxId" value={inboxId} />
      <button type="submit" className={oauth.revoked ? 'btn btn-primary' : 'btn'} name="intent" value="connect" disabled={locked}>
        {`Reconnect with ${label}`}
      </button>
    </Form>
  );
}

/** The certificate a server offered that nobody vouches for: shown with its fingerprint, trusted for this inbox only. */
function TrustCertificate({ part, certificate, locked }: { part: 'imap' | 'smtp'; certificate: NonNullable<LoaderData['health'][number]['certificate']>; locked: boolean }) {
  const [form, fields] = useForm({ id: `trust-${part}`, lastResult: useResult('trust'), defaultValue: { fingerprint: '' } });
  return (
    <Form method="post" {...getFormProps(form)} data-testid={`trust-${part}`} className="stack">
      <p>
        The {part === 'imap' ? 'IMAP' : 'SMTP'} server offered a certificate that is not signed by a public authority. If it is your server&apos;s own
        (self-signed or from your company&apos;s authority), compare its SHA-256 fingerprint with the one on the server, then trust it for this inbox only.
      </p>
      <dl>
        <dt>SHA-256 fingerprint</dt>
        <dd>
          <code data-testid={`fingerprint-${part}`}>{certificate.fingerprint}</code>
        </dd>
        <dt>Issued to</dt>
        <dd>{certificate.subject}</dd>
        <dt>Issued by</dt>
        <dd>{certificate.issuer}</dd>
        <dt>Valid until</dt>
        <dd>{certificate.validTo}</dd>
      </dl>
      <fieldset disabled={locked} className="stack">
        <Field label="Fingerprint you checked" field={fields.fingerprint} autoComplete="off" hint="Paste the fingerprint shown above once it matches the server's" />
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      <button type="submit" className="btn" name="intent" value={`${part}-trust`} disabled={locked}>
        Trust this certificate
      </button>
    </Form>
  );
}

function Quarantine({ inboxId, items, user, locked }: { inboxId: number; items: LoaderData['quarantined']; user: LoaderData['user']; locked: boolean }) {
  return (
    <section className="settings-page" aria-labelledby="quarantine-title" data-testid="quarantine">
      <header>
        <h2 id="quarantine-title">Quarantined mail</h2>
      </header>
      <div className="card stack">
        <p className="muted">
          Mail Parley could not store, kept as it arrived so that the mail after it was not held up. Download it to read it in a mail program, try
          again after an upgrade, or delete it.
        </p>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Reason</th>
              <th scope="col">Tries</th>
              <th scope="col">
                Actions
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((q) => (
              <tr key={q.id}>
                <td>{formatDateTime(q.createdAt, user)}</td>
                <td>{q.reason}</td>
                <td>{q.attempts}</td>
                <td>
                  <Form method="post">
                    {/* A plain link: the download is a file, not a page for the router. */}
                    <a className="btn" href={`${LIST}/${inboxId}/quarantine/${q.id}`} download={`quarantined-${q.id}.eml`}>
                      Download<span className="visually-hidden"> the mail received {formatDateTime(q.createdAt, user)}</span>
                    </a>{' '}
                    <input type="hidden" name="quarantineId" value={q.id} />
                    <button type="submit" className="btn" name="intent" value="quarantine-retry" disabled={locked}>
                      Retry
                    </button>{' '}
                    <button type="submit" className="btn" name="intent" value="quarantine-delete" disabled={locked}>
                      Delete
                    </button>
                  </Form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Receiving({ inbox, http, locked, user }: { inbox: NonNullable<LoaderData['inbox']>; http: LoaderData['http']; locked: boolean; user: LoaderData['user'] }) {
  return (
    <section className="settings-page" aria-labelledby="receiving-title">
      <header>
        <h2 id="receiving-title">Receiving mail</h2>
      </header>
      <div className="card stack">
        <div data-testid="forwarding">
          <strong>Forwarding address</strong>
          <p>
            <code data-testid="forwarding-address">{inbox.forwardingAddress}</code> {inbox.forwardingAddress ? <CopyButton text={inbox.forwardingAddress} /> : null}
          </p>
          <p className="muted">
            Forward {inbox.email ?? 'your support address'} to this address (in your mail provider&apos;s forwarding settings, and an MX record of the
            inbound domain pointing at Parley). Then send the verification mail: when it comes back through forwarding, the inbox is verified.
          </p>
          <p data-testid="verified-state">
            {inbox.verifiedAt ? (
              <span className="pill pill-ok">Verified {formatDateTime(inbox.verifiedAt, user)}</span>
            ) : (
              <span className="pill pill-warn">Not verified yet</span>
            )}
          </p>
          <Form method="post">
            <button type="submit" className="btn" name="intent" value="sendverificationmail" disabled={locked} title={locked ? ROLE_LOCKED_MESSAGE : undefined}>
              {locked ? '🔒 ' : ''}Send verification mail
            </button>
          </Form>
        </div>
        {inbox.mode === 'http' ? (
          <div data-testid="http-endpoint">
            <strong>HTTP endpoint</strong>
            {http ? (
              <>
                <p>
                  POST the raw message (RFC 822) to <code data-testid="http-url">{http.url}</code> with the header{' '}
                  <code data-testid="http-secret">{`Authorization: Bearer ${http.secret}`}</code>.
                </p>
                <p className="muted">Up to 30 MB per message. Keep the secret private: anyone who has it can post mail into this inbox.</p>
              </>
            ) : (
              <p className="muted">{ROLE_LOCKED_MESSAGE}</p>
            )}
          </div>
        ) : null}
        {inbox.mode === 'imap' ? <ImapSettings inbox={inbox} locked={locked} /> : null}
      </div>
    </section>
  );
}

function ImapSettings({ inbox, locked }: { inbox: NonNullable<LoaderData['inbox']>; locked: boolean }) {
  const imap = inbox.imap;
  const [form, fields] = useForm<z.input<typeof ImapSettingsSchema>>({
    id: `imap-${inbox.id}`,
    lastResult: useResult('imap'),
    defaultValue: { host: imap?.host ?? '', port: String(imap?.port ?? 993), security: imap?.security ?? 'tls', user: imap?.user ?? '', mailbox: imap?.mailbox ?? 'INBOX' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <Form method="post" {...getFormProps(form)} data-testid="imap-form">
      <h3>IMAP</h3>
      <p className="muted">Parley keeps a connection to the mailbox and takes new mail the moment it arrives (IMAP IDLE). It does not change or delete your mail.</p>
      <fieldset disabled={locked} className="stack">
        <Field label="IMAP host" field={fields.host} autoComplete="off" />
        <Field label="IMAP port" type="number" field={fields.port} />
        <SelectField label="Security" field={fields.security} options={SECURITY_OPTIONS} />
        <Field label="IMAP user name" field={fields.user} autoComplete="off" />
        <Field label="IMAP password" type="password" field={fields.password} autoComplete="new-password" placeholder={imap?.hasPassword ? 'Saved: leave empty to keep it' : ''} />
        <Field label="Mailbox" field={fields.mailbox} autoComplete="off" />
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      <FormActions cancelTo={LIST} submitLabel="Save IMAP settings" intent="imap" locked={locked} />
    </Form>
  );
}

function SmtpSettings({ inbox, locked }: { inbox: NonNullable<LoaderData['inbox']>; locked: boolean }) {
  const smtp = inbox.smtp;
  const [form, fields] = useForm<z.input<typeof SmtpSettingsSchema>>({
    id: `smtp-${inbox.id}`,
    lastResult: useResult('smtp'),
    defaultValue: { host: smtp?.host ?? '', port: String(smtp?.port ?? 587), security: smtp?.security ?? 'starttls', user: smtp?.user ?? '' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <section className="settings-page" aria-labelledby="smtp-title">
      <header>
        <h2 id="smtp-title">Sending mail</h2>
      </header>
      <div className="card">
        <p className="muted" data-testid="smtp-state">
          {smtp
            ? `Replies leave through ${smtp.host}:${smtp.port} from ${inbox.email}.`
            : `Replies leave through Parley's own mail server, from Parley's address with ${inbox.name}'s name; answers come back to this inbox.`}
        </p>
        <Form method="post" {...getFormProps(form)} data-testid="smtp-form">
          <fieldset disabled={locked} className="stack">
            <Field label="SMTP host" field={fields.host} autoComplete="off" />
            <Field label="SMTP port" type="number" field={fields.port} />
            <SelectField label="Security" field={fields.security} options={SECURITY_OPTIONS} />
            <Field label="SMTP user name" field={fields.user} autoComplete="off" hint="Leave empty for a relay that does not ask for a login" />
            <Field label="SMTP password" type="password" field={fields.password} autoComplete="new-password" placeholder={smtp?.hasPassword ? 'Saved: leave empty to keep it' : ''} />
          </fieldset>
          <ErrorList id={form.errorId} errors={form.errors} />
          <FormActions cancelTo={LIST} submitLabel="Save SMTP settings" intent="smtp" locked={locked} />
        </Form>
        {smtp ? (
          <Form method="post">
            <button type="submit" className="btn" name="intent" value="smtp-clear" disabled={locked} title={locked ? ROLE_LOCKED_MESSAGE : undefined}>
              Use Parley&apos;s mail server instead
            </button>
          </Form>
        ) : null}
      </div>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.inbox?.name ?? 'Create Inbox', 'Emails', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}

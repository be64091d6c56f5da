import { and, count, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';

export type OnboardingStep = { key: 'channel' | 'invite' | 'widget' | 'workflow'; label: string; hint: string; done: boolean; to: string; guide: string };

/**
 * The getting-started checklist, computed from what the account has actually done: a channel connected (any
 * inbox), a teammate invited, the chat widget installed (a visitor has opened it on a site), a workflow made.
 */
export async function getOnboardingSteps(opts: { accountId: number }): Promise<OnboardingStep[]> {
  const db = getDb();
  const n = (rows: { n: number }[]) => rows[0]?.n ?? 0;
  const [inboxes, users, visitors, workflows] = await Promise.all([
    db.select({ n: count() }).from(schema.inboxes).where(eq(schema.inboxes.accountId, opts.accountId)),
    db.select({ n: count() }).from(schema.users).where(eq(schema.users.accountId, opts.accountId)),
    db.select({ n: count() }).from(schema.widgetVisitors).where(eq(schema.widgetVisitors.accountId, opts.accountId)),
    db
      .select({ n: count() })
      .from(schema.automationRules)
      .where(and(eq(schema.automationRules.accountId, opts.accountId), eq(schema.automationRules.kind, 'workflow'))),
  ]);
  return [
    {
      key: 'channel',
      label: 'Connect a channel',
      hint: 'An email address, the website chat, SMS or a contact form: where your customers reach you.',
      done: n(inboxes) > 0,
      to: '/settings/emails',
      guide: '/help-center/getting-started#connect-a-channel',
    },
    {
      key: 'invite',
      label: 'Invite a teammate',
      hint: 'Support is a team sport: each teammate gets an email to set a password.',
      done: n(users) > 1,
      to: '/settings/users',
      guide: '/help-center/getting-started#invite-a-teammate',
    },
    {
      key: 'widget',
      label: 'Install the widget',
      hint: 'Paste the chat messenger’s snippet into your site; this ticks when the first visitor opens it.',
      done: n(visitors) > 0,
      to: '/settings/chat-messenger',
      guide: '/help-center/getting-started#install-the-widget',
    },
    {
      key: 'workflow',
      label: 'Create a workflow',
      hint: 'Let Parley tag, assign or prioritise new conversations on its own.',
      done: n(workflows) > 0,
      to: '/workflows',
      guide: '/help-center/getting-started#create-a-workflow',
    },
  ];
}

export async function getAccountSummary(opts: { accountId: number }) {
  const db = getDb();
  const [[users], [teams], [roles]] = await Promise.all([
    db.select({ n: count() }).from(schema.users).where(eq(schema.users.accountId, opts.accountId)),
    db.select({ n: count() }).from(schema.teams).where(eq(schema.teams.accountId, opts.accountId)),
    db.select({ n: count() }).from(schema.roles).where(eq(schema.roles.accountId, opts.accountId)),
  ]);
  return { users: users.n, teams: teams.n, roles: roles.n };
}

import { pathToFileURL } from 'node:url';
import { addOperator, findOperatorByEmail, setOperatorPassword } from '../app/models/operations/operators.server';
import { ConfigError, getConfig } from '../app/utils/env.server';
import { createAccountWithOwner, findAccountByDomain, saveExtraDetails, updateAccountSecurity } from '../app/models/accounts/accounts.server';
import { confirmEmailCode, setPasswordWithToken } from '../app/models/auth/auth.server';
import { issueToken } from '../app/models/auth/tokens.server';
import { inviteUser } from '../app/models/users/invitations.server';
import { AGENT_PERMISSIONS, type Permission } from '../app/models/roles/permissions';
import { createRole, listRoles } from '../app/models/roles/roles.server';
import { createTeam } from '../app/models/teams/teams.server';
import { withDatabase } from '../server/boot';
import { seedDemoData } from './seed-data';
import { seedDemoKnowledgeBase } from './seed-kb';
import { listWebInboxes, saveMessengerSection } from '../app/models/channels/messenger-settings.server';
import { readMessengerSettings } from '../app/models/channels/messenger-settings';
import { seedDemoSurveys } from './seed-surveys';
import { seedDemoSurveyResponses } from './seed-survey-responses';
import { seedDemoChatbots } from './seed-chatbots';
import { seedDemoCampaigns } from './seed-campaigns';
import { seedDemoPush } from './seed-push';
import { seedDemoBilling } from './seed-billing';
import { seedDemoMeetingsAndTime } from './seed-meetings';
import { seedDemoReviewsAndForms } from './seed-reviews-forms';
import { seedDemoCsat } from './seed-csat';
import { seedDemoDeveloper } from './seed-developer';
import { seedDemoAiRequests } from './seed-ai';
import { seedDemoAnalytics } from './seed-analytics';
import { seedDemoConversions } from './seed-conversions';
import { getDb, schema } from './client';
import { runAccountExport } from '../app/models/operations/account-export.server';

/**
 * `npm run seed` (or `npm run demo`): a demo account to look around in, built through the same model
 * functions as the screens (so it emits the same domain events), then filled with two months of support work
 * (db/seed-data.ts, drawn from a seeded faker in db/seed-plan.ts). Run it again and it leaves the demo as it is.
 */
export const DEMO = {
  domain: 'demo',
  password: 'parley-demo',
  owner: { email: 'demo@parley.local', firstName: 'Dana', lastName: 'Demo' },
  admin: { email: 'admin@parley.local', firstName: 'Alex', lastName: 'Admin' },
  agents: [
    { email: 'sam@parley.local', firstName: 'Sam', lastName: 'Support' },
    { email: 'riley@parley.local', firstName: 'Riley', lastName: 'Billing' },
  ],
} as const;

const SUPERVISOR_PERMISSIONS: Permission[] = [
  ...AGENT_PERMISSIONS,
  'export_contacts',
  'manage_articles',
  'manage_business_hours',
  'manage_sla',
  'customer_reports',
  'customer_satisfication_reports',
  'performance_reports',
  'view_audit_logs',
];

export async function seedDemo(opts: { now?: Date } = {}): Promise<{ created: boolean }> {
  if (await findAccountByDomain(DEMO.domain)) return { created: false };
  const baseUrl = `http://${DEMO.domain}.${getConfig().appHost}`;

  const { account, owner } = await createAccountWithOwner({ domain: DEMO.domain, password: DEMO.password, ...DEMO.owner });
  // The code the sign-up email would carry, entered as the owner would enter it.
  const code = await issueToken({ accountId: account.id, userId: owner.id, purpose: 'email_verification', kind: 'code' });
  const confirmed = await confirmEmailCode({ accountId: account.id, email: owner.email, code });
  if (confirmed !== 'ok') throw new Error(`could not confirm the demo owner's email (${confirmed})`);
  await saveExtraDetails({ accountId: account.id, userId: owner.id, organisationName: 'Parley Demo', companySize: '11-50', industry: 'Software' });
  // Account security (ADR 148) as a small team sets it: idle sessions end after 4 hours; two-factor is offered to
  // everyone under My Settings › Security but not required (a required setup would stand between a visitor and the demo).
  await updateAccountSecurity({ accountId: account.id, userId: owner.id, requireTwoFactor: false, idleSignOutMinutes: 240 });

  const roles = await listRoles({ accountId: account.id });
  const roleId = (kind: 'admin' | 'agent') => roles.find((r) => r.kind === kind)!.id;

  /** Invited as an admin would invite them, then the invitation link followed to set the password. */
  const addUser = async (person: { email: string; firstName: string; lastName: string }, kind: 'admin' | 'agent') => {
    const user = await inviteUser({ accountId: account.id, invitedById: owner.id, roleId: roleId(kind), baseUrl, ...person });
    const token = await issueToken({ accountId: account.id, userId: user.id, purpose: 'invitation', kind: 'link' });
    const result = await setPasswordWithToken({ accountId: account.id, token, password: DEMO.password });
    if (!result.ok) throw new Error(`could not activate ${person.email}`);
    return result.user;
  };
  const admin = await addUser(DEMO.admin, 'admin');
  const [sam, riley] = [await addUser(DEMO.agents[0], 'agent'), await addUser(DEMO.agents[1], 'agent')];

  await createRole({
    accountId: account.id,
    actorId: owner.id,
    name: 'Supervisor',
    description: 'Leads a team: conversations, contacts, reports and service levels.',
    permissions: SUPERVISOR_PERMISSIONS,
  });
  const support = await createTeam({
    accountId: account.id,
    actorId: owner.id,
    name: 'Support',
    description: 'First line: every new conversation.',
    memberIds: [admin.id, sam.id, riley.id],
  });
  const billing = await createTeam({
    accountId: account.id,
    actorId: owner.id,
    name: 'Billing',
    description: 'Invoices, plans and refunds.',
    memberIds: [admin.id, riley.id],
  });
  await seedDemoData({ accountId: account.id, users: [owner, admin, sam, riley], teams: { Support: support.id, Billing: billing.id }, now: opts.now ?? new Date() });
  const kb = await seedDemoKnowledgeBase({ accountId: account.id, authorIds: [admin.id, sam.id, riley.id] });
  // The website chat searches the help centre before a chat starts.
  for (const inbox of await listWebInboxes({ accountId: account.id }))
    await saveMessengerSection({ accountId: account.id, actorId: owner.id, inboxId: inbox.id, section: 'configure', value: { ...readMessengerSettings(inbox.settings).configure, helpCentreId: kb.id } });
  await seedDemoSurveys({ accountId: account.id, ownerId: owner.id, adminId: admin.id });
  await seedDemoSurveyResponses({ accountId: account.id, now: opts.now });
  await seedDemoChatbots({ accountId: account.id, ownerId: owner.id, supportTeamId: support.id });
  await seedDemoCampaigns({ accountId: account.id, actorId: admin.id, now: opts.now ?? new Date() });
  await seedDemoPush({ accountId: account.id, actorId: admin.id, now: opts.now ?? new Date() });
  await seedDemoBilling({ accountId: account.id, now: opts.now ?? new Date() });
  await seedDemoMeetingsAndTime({ accountId: account.id, ownerId: owner.id, adminId: admin.id, agentIds: [sam.id, riley.id], now: opts.now });
  await seedDemoReviewsAndForms({ accountId: account.id, ownerId: owner.id, now: opts.now });
  await seedDemoCsat({ accountId: account.id, ownerId: owner.id, now: opts.now });
  await seedDemoDeveloper({ accountId: account.id, ownerId: owner.id, now: opts.now });
  await seedDemoConversions({ accountId: account.id, actorId: admin.id, now: opts.now ?? new Date() });
  await seedDemoAiRequests({ accountId: account.id, now: opts.now });
  // Last: the projections are rebuilt from everything written above.
  await seedDemoAnalytics({ accountId: account.id });
  // Settings › Data Export shows one real archive, ready for its one download (ADR 153): made here as the engine would.
  const [demoExport] = await getDb().insert(schema.accountExports).values({ accountId: account.id, requestedByKind: 'user', requestedById: owner.id }).returning();
  await runAccountExport({ accountId: account.id, exportId: demoExport.id });
  return { created: true };
}

/** The demo's operator of the console (ADR 152), with the demo's password, so a new user sees /operator too. */
export const DEMO_OPERATOR = 'operator@parley.test';

async function seedDemoOperator() {
  if (await findOperatorByEmail(DEMO_OPERATOR)) return;
  const { token } = await addOperator({ email: DEMO_OPERATOR });
  await setOperatorPassword({ token, password: DEMO.password });
}

function signInHelp() {
  const people = [DEMO.owner, DEMO.admin, ...DEMO.agents];
  return [
    `  The operator's console: http://${getConfig().appHost}/operator/signin as ${DEMO_OPERATOR} (password "${DEMO.password}").`,
    `  Sign in at http://${DEMO.domain}.${getConfig().appHost}/signin with any of (password "${DEMO.password}"):`,
    `    ${people[0].email.padEnd(22)} owner`,
    `    ${people[1].email.padEnd(22)} admin`,
    ...DEMO.agents.map((a) => `    ${a.email.padEnd(22)} agent`),
  ].join('\n');
}

async function main() {
  try {
    getConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  const { created } = await withDatabase(
    async () => {
      const result = await seedDemo();
      await seedDemoOperator();
      return result;
    },
    { log: (m) => console.error(m) },
  );
  console.log(created ? '\nThe demo account is ready.' : `\nThe demo account already exists (domain "${DEMO.domain}"); nothing changed.`);
  console.log(`${signInHelp()}\n`);
  return 0;
}

// Run as a script (npm run seed), not when a test imports DEMO.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(`Seeding failed: ${err instanceof Error ? err.message : err}`);
      if (process.env.LOG_LEVEL === 'debug') console.error(err);
      process.exit(1);
    },
  );
}

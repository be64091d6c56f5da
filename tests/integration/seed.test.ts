import { runScript } from '../helpers/process';
import { sessionCookie, startTestApp } from '../helpers/http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, test } from 'vitest';
import { getDb, schema } from '../../db/client';
import { findAccountByDomain } from '../../app/models/accounts/accounts.server';
import { verifyCredentials } from '../../app/models/auth/auth.server';
import { buildDemoPlan, DEMO_CONVERSATIONS } from '../../db/seed-plan';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-seed-test-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** `npm run seed`, as its own process against this file's database. */
function seed() {
  return runScript('db/seed.ts', [], { ...process.env, DATABASE_URL: process.env.DATABASE_URL, PARLEY_DATA_DIR: dataDir });
}

const COUNTED = {
  users: schema.users,
  roles: schema.roles,
  teams: schema.teams,
  inboxes: schema.inboxes,
  conversations: schema.conversations,
  messages: schema.messages,
  attachments: schema.attachments,
  tags: schema.tags,
  contacts: schema.contacts,
  companies: schema.companies,
  crmNotes: schema.crmNotes,
  segments: schema.segments,
  cannedResponses: schema.cannedResponses,
  businessHours: schema.businessHours,
  slaPolicies: schema.slaPolicies,
  routingRules: schema.routingRules,
  automationRules: schema.automationRules,
  automationRunLog: schema.automationRunLog,
  domainEvents: schema.domainEvents,
  surveys: schema.surveys,
  surveyFolders: schema.surveyFolders,
  surveyVersions: schema.surveyVersions,
  surveyResponses: schema.surveyResponses,
  campaigns: schema.campaigns,
  campaignTemplates: schema.campaignTemplates,
  pushSegments: schema.pushSegments,
  pushSubscriptions: schema.pushSubscriptions,
  csatSurveys: schema.csatSurveys,
  csatRatings: schema.csatRatings,
};

async function snapshot(accountId: number) {
  const db = getDb();
  const out: Record<string, number> = {};
  for (const [name, table] of Object.entries(COUNTED))
    out[name] = (await db.select({ n: sql<number>`count(*)::int` }).from(table).where(eq(table.accountId, accountId)))[0].n;
  return out;
}

describe('the demo plan', () => {
  test('the same seed and time give the same data; another seed other data', () => {
    const now = new Date('2026-06-01T12:00:00Z');
    const a = buildDemoPlan({ now });
    expect(buildDemoPlan({ now })).toEqual(a);
    expect(buildDemoPlan({ now, seed: 7 }).conversations.map((c) => c.subject)).not.toEqual(a.conversations.map((c) => c.subject));
    // Spread over the last 60 days, across inboxes, statuses and priorities.
    const ages = a.conversations.map((c) => (now.getTime() - c.createdAt.getTime()) / 86_400_000);
    expect(Math.max(...ages)).toBeGreaterThan(50);
    expect(Math.max(...ages)).toBeLessThanOrEqual(61);
    expect(Math.min(...ages)).toBeLessThan(2);
    expect(new Set(a.conversations.map((c) => c.inbox))).toEqual(new Set(['support', 'billing', 'chat']));
    expect(new Set(a.conversations.map((c) => c.status))).toEqual(new Set(['open', 'pending', 'snoozed', 'resolved']));
    expect(new Set(a.conversations.map((c) => c.priority)).size).toBe(5);
  });
});

describe('npm run seed', () => {
  test('creates the demo account once; a second run changes nothing; everyone can sign in', { timeout: 120_000 }, async () => {
    const started = Date.now();
    const first = await seed();
    const seconds = (Date.now() - started) / 1000;
    expect(first.stderr).toBe('');
    // The target is 30 s on a quiet machine (measured for the note); a test sharing two cores with the rest of
    // the suite only guards against a seed that has become several times slower.
    console.log(`npm run seed: ${seconds.toFixed(1)} s (target 30 s on a quiet machine)`);
    expect(seconds).toBeLessThan(90);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('The demo account is ready.');
    expect(first.stdout).toContain('Sign in at http://demo.localhost:3000/signin');
    expect(first.stdout).toContain('demo@parley.local');

    const account = await findAccountByDomain('demo');
    expect(account).toMatchObject({ domain: 'demo', name: 'Parley Demo' });
    const before = await snapshot(account.id);
    // The plan's conversations and contacts, the three website visitors who talked to the demo's chatbot (db/seed-chatbots.ts),
    // and the two low reviews' conversations opened by the review workflow (ADR 149), one reviewer a new contact.
    expect(before).toMatchObject({ users: 4, roles: 4, teams: 2, inboxes: 3, conversations: DEMO_CONVERSATIONS + 5, tags: 8, companies: 14, contacts: 144, segments: 3 });
    expect(before).toMatchObject({ cannedResponses: 6, businessHours: 2, slaPolicies: 1, routingRules: 2, automationRules: 4 });
    expect(before).toMatchObject({ surveys: 5, surveyFolders: 3, surveyVersions: 3, surveyResponses: 250 });
    expect(before).toMatchObject({ campaigns: 5, campaignTemplates: 2, pushSegments: 2, pushSubscriptions: 140 });
    expect(before).toMatchObject({ surveys: 5, surveyFolders: 3, surveyVersions: 3, surveyResponses: 250, csatSurveys: 2 });
    expect(before.csatRatings).toBeGreaterThan(20);
    expect(before.messages).toBeGreaterThan(DEMO_CONVERSATIONS * 2);
    expect(before.attachments).toBeGreaterThan(10);
    // An agent's answer with a screenshot inside it (ADR 156): the thread shows it through the attachment route.
    const [inline] = await getDb()
      .select({ text: schema.messages.text, html: schema.messages.html })
      .from(schema.messages)
      .where(and(eq(schema.messages.accountId, account.id), eq(schema.messages.kind, 'outgoing'), sql`${schema.messages.html} like '%<img src="/attachments/%'`));
    expect(inline?.text).toContain('Here is where to click:\n[image: where-to-click.png]');
    expect(before.crmNotes).toBeGreaterThan(20);
    expect(before.automationRunLog).toBeGreaterThan(100);

    const second = await seed();
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('The demo account already exists (domain "demo"); nothing changed.');
    expect(second.stdout).toContain('Sign in at http://demo.localhost:3000/signin');
    expect(await snapshot(account.id)).toEqual(before);
    expect((await getDb().select().from(schema.accounts).where(eq(schema.accounts.domain, 'demo'))).length).toBe(1);

    // Every demo user is active, verified and signs in with the documented password.
    const roleOf: Record<string, string | null> = {};
    for (const email of ['demo@parley.local', 'admin@parley.local', 'sam@parley.local', 'riley@parley.local']) {
      const check = await verifyCredentials({ accountId: account.id, email, password: 'parley-demo' });
      expect(check.ok, email).toBe(true);
      if (!check.ok) continue;
      expect(check.user.status).toBe('active');
      expect(check.user.emailVerifiedAt).not.toBeNull();
      const [role] = await getDb().select().from(schema.roles).where(and(eq(schema.roles.id, check.user.roleId), eq(schema.roles.accountId, account.id)));
      roleOf[email] = role.kind;
    }
    expect(roleOf).toEqual({ 'demo@parley.local': 'owner', 'admin@parley.local': 'admin', 'sam@parley.local': 'agent', 'riley@parley.local': 'agent' });
    expect((await verifyCredentials({ accountId: account.id, email: 'demo@parley.local', password: 'wrong-password' })).ok).toBe(false);

    // The custom role and the two teams with their members.
    const [supervisor] = await getDb()
      .select()
      .from(schema.roles)
      .where(and(eq(schema.roles.accountId, account.id), eq(schema.roles.name, 'Supervisor')));
    expect(supervisor.kind).toBeNull();
    expect(supervisor.permissions).toContain('manage_conversation');
    const members = await getDb()
      .select({ team: schema.teams.name, email: schema.users.email })
      .from(schema.teamMembers)
      .innerJoin(schema.teams, eq(schema.teams.id, schema.teamMembers.teamId))
      .innerJoin(schema.users, eq(schema.users.id, schema.teamMembers.userId))
      .where(eq(schema.teams.accountId, account.id));
    const byTeam = (name: string) => members.filter((m) => m.team === name).map((m) => m.email).sort();
    expect(byTeam('Support')).toEqual(['admin@parley.local', 'riley@parley.local', 'sam@parley.local']);
    expect(byTeam('Billing')).toEqual(['admin@parley.local', 'riley@parley.local']);

    // The help centre: published articles in four categories, one draft, one revision not yet published.
    const articles = await getDb().select().from(schema.kbArticles).where(eq(schema.kbArticles.accountId, account.id));
    expect(articles.filter((a) => a.status === 'published')).toHaveLength(9);
    expect(articles.filter((a) => a.status === 'draft').map((a) => a.title)).toEqual(['Two-step verification']);
    const refund = articles.find((a) => a.title === 'Refund policy')!;
    expect(refund.publishedHtml).toContain('30 days');
    expect(refund.bodyHtml).toContain('60 days');

    // Built through the model functions: the same domain events as the screens write.
    const events = await getDb()
      .select({ type: schema.domainEvents.type })
      .from(schema.domainEvents)
      .where(eq(schema.domainEvents.accountId, account.id)).orderBy(schema.domainEvents.id);
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['account_created', 'user_activated', 'user_invited', 'role_created', 'team_created']));
    expect(types.filter((t) => t === 'team_created')).toHaveLength(2);
    expect(types).toEqual(expect.arrayContaining(['inbox_created', 'contact_created', 'company_created', 'workflow_created', 'sla_policy_created', 'routing_rule_created']));

    // The data is the plan's (deterministic): same subjects in the same order, within the last 60 days.
    const convs = await getDb()
      .select()
      .from(schema.conversations)
      .where(eq(schema.conversations.accountId, account.id))
      .orderBy(asc(schema.conversations.id));
    const plan = buildDemoPlan({ now: new Date() });
    // The chatbot's three conversations (db/seed-chatbots.ts) came through the widget, not from the plan.
    const botConversations = new Set(
      (await getDb().select({ id: schema.chatbotRuns.conversationId }).from(schema.chatbotRuns).where(eq(schema.chatbotRuns.accountId, account.id))).map((r) => r.id),
    );
    expect(botConversations.size).toBe(3);
    // The review workflow's conversations (db/seed-reviews-forms.ts): the two reviews under 3 stars.
    const reviewConversations = convs.filter((c) => c.sourceType === 'internal_ticket' && /★ review on /.test(c.subject));
    expect(reviewConversations.map((c) => c.subject).sort()).toEqual(['1★ review on Our review page', '2★ review on Our review page']);
    const planned = convs.filter((c) => !botConversations.has(c.id) && !reviewConversations.includes(c));
    expect(planned.map((c) => c.subject)).toEqual(plan.conversations.map((c) => c.subject));
    const oldest = Math.min(...planned.map((c) => c.createdAt.getTime()));
    expect(Date.now() - oldest).toBeGreaterThan(50 * 86_400_000);
    expect(Date.now() - oldest).toBeLessThan(61 * 86_400_000);
    // SLA states: due times set by the policy, some met, some breached; searchable words; some snoozed.
    expect(planned.every((c) => c.slaPolicyId !== null && c.firstResponseDueAt !== null)).toBe(true);
    expect(planned.some((c) => c.responseBreachedAt !== null)).toBe(true);
    expect(planned.some((c) => c.firstRespondedAt !== null && c.responseBreachedAt === null)).toBe(true);
    // Analytics (issue 21): the projections are rebuilt at the end of seeding; every conversation is counted once.
    const [counted] = await getDb()
      .select({ n: sql<number>`coalesce(sum(${schema.analyticsCounters.n}), 0)::int` })
      .from(schema.analyticsCounters)
      .where(and(eq(schema.analyticsCounters.accountId, account.id), eq(schema.analyticsCounters.metric, 'conversations'), eq(schema.analyticsCounters.dim, 'all')));
    expect(counted.n).toBe(convs.length);
    // Conversions (ADR 104): goals, trackers and sales, most of the tracked ones attributed to a chat, all projected.
    const [sold] = await getDb().execute<{ sales: number; attributed: number; projected: number; goals: number }>(sql`
      select (select count(*)::int from sales where account_id = ${account.id}) as sales,
        (select count(*)::int from sales where account_id = ${account.id} and conversation_id is not null) as attributed,
        (select coalesce(sum(n), 0)::int from analytics_counters where account_id = ${account.id} and metric = 'sales' and dim = 'all') as projected,
        (select count(*)::int from goal_conversions where account_id = ${account.id}) as goals`);
    expect(sold.sales).toBeGreaterThan(20);
    expect(sold.attributed).toBeGreaterThan(5);
    expect(sold.projected).toBe(sold.sales);
    expect(sold.goals).toBeGreaterThan(20);
    expect(convs.every((c) => c.search !== null)).toBe(true);
    expect(convs.filter((c) => c.status === 'snoozed').every((c) => c.snoozedUntil && c.snoozedUntil.getTime() > Date.now())).toBe(true);
    // Phone numbers stored in one form.
    const phones = (await getDb().select({ phone: schema.contacts.phone }).from(schema.contacts).where(eq(schema.contacts.accountId, account.id)))
      .map((c) => c.phone)
      .filter(Boolean);
    expect(phones.length).toBeGreaterThan(20);
    for (const p of phones) expect(p).toMatch(/^\+\d{6,15}$/);
  });

  test('the seeded demo shows data on every built screen (server-rendered, as without JavaScript)', { timeout: 120_000 }, async () => {
    const account = await findAccountByDomain('demo');
    const [owner] = await getDb().select().from(schema.users).where(and(eq(schema.users.accountId, account.id), eq(schema.users.email, 'demo@parley.local')));
    const cookie = await sessionCookie({ domain: 'demo', accountId: account.id, userId: owner.id });
    const app = await startTestApp();
    try {
      const [conv] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, account.id)).orderBy(asc(schema.conversations.id)).limit(1);
      const [contact] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.accountId, account.id)).orderBy(desc(schema.contacts.id)).limit(1);
      const [company] = await getDb().select().from(schema.companies).where(eq(schema.companies.accountId, account.id)).orderBy(asc(schema.companies.id)).limit(1);
      const [workflow] = await getDb()
        .select()
        .from(schema.automationRules)
        .where(and(eq(schema.automationRules.accountId, account.id), eq(schema.automationRules.name, 'Urgent to Sam')));
      const screens: [string, string[]][] = [
        ['/home', ['Welcome, Dana', '4 users']],
        // The demo's website chat has had visitors (they talked to the Acme assistant): every step is done.
        ['/getting-started', ['All done.']],
        ['/inbox?status=all', ['Support', 'Billing']],
        [`/inbox/${conv.id}`, [conv.subject]],
        ['/customers', [contact.lastName]],
        [`/customers/${contact.id}`, [contact.firstName]],
        ['/customers/companies', [company.name]],
        [`/customers/companies/${company.id}`, [company.name]],
        ['/workflows', ['Urgent to Sam', 'Tag refunds', 'Escalate breaches', 'Answer low reviews']],
        ['/surveys', ['Checkout NPS', 'Onboarding effort (CES)', 'Wishlist feature feedback', 'Closed']],
        [`/workflows/builder/${workflow.id}?runs=1`, ['Run history']],
        ['/settings/emails', ['support@parley-demo.example', 'billing@parley-demo.example']],
        ['/settings/chat-messenger', ['Website chat']],
        ['/settings/tags', ['feature-request']],
        ['/settings/canned-responses', ['Password reset']],
        ['/settings/email-templates', ['Invoice corrected']],
        ['/campaigns', ['November newsletter', 'December newsletter', 'VIP customers']],
        ['/settings/campaigns-templates', ['Monthly newsletter', 'Renewal reminder']],
        ['/campaigns/push-segment', ['Pricing page visitors', 'Desktop Chrome and Edge', '140 visitors have subscribed']],
        ['/settings/business-hours', ['Office hours (Berlin)']],
        ['/settings/sla-policy', ['Standard support']],
        ['/settings/routing', ['Chats in turn']],
        ['/settings/teams', ['Billing']],
        ['/settings/users', ['sam@parley.local']],
        ['/settings/roles', ['Supervisor']],
        ['/settings/developer-api', ['Shop order sync', 'Old reporting script', 'Revoked']],
        ['/settings/webhooks', ['https://hooks.example.com/parley', 'Paused']],
        ['/settings/data-export', ['Ready to download', 'Download (']],
      ];
      for (const [path, texts] of screens) {
        const res = await app.request(path, { domain: 'demo', cookie });
        expect(res.status, path).toBe(200);
        const text = res.text.replace(/<!-- -->/g, '').replace(/&amp;/g, '&').replace(/&#x27;/g, "'");
        for (const t of texts) expect(text, `${path} shows ${t}`).toContain(t);
      }
    } finally {
      await app.close();
    }
  });
});

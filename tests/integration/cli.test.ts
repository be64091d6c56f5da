import { runScript } from '../helpers/process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, test } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createTestAccount } from '../factories';

// The CLI runs as its own process against this file's database, as an operator would run it.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-test-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function parley(...args: string[]) {
  return runScript('server/cli.ts', [...args], { ...process.env, DATABASE_URL: process.env.DATABASE_URL, PARLEY_DATA_DIR: dataDir });
}

async function accountWithPlan(domain: string) {
  const [row] = await getDb()
    .select({ account: schema.accounts, plan: schema.plans })
    .from(schema.accounts)
    .innerJoin(schema.plans, eq(schema.plans.id, schema.accounts.planId))
    .where(eq(schema.accounts.domain, domain));
  return row;
}

describe('npm run parley', () => {
  test('plan set switches an account to another plan, with status and trial end', async () => {
    const { account, domain } = await createTestAccount();
    expect((await accountWithPlan(domain)).plan.key).toBe('trial');

    const res = await parley('plan', 'set', domain.toUpperCase(), 'growth', '--status', 'active', '--trial-ends', '2030-01-31');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`${domain} is now on the Growth plan (growth), subscription active`);

    const after = await accountWithPlan(domain);
    expect(after.plan.key).toBe('growth');
    expect(after.account.subscriptionStatus).toBe('active');
    expect(after.account.trialEndsAt?.toISOString()).toBe('2030-01-31T23:59:59.999Z');
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.type, 'plan_changed'))).orderBy(schema.domainEvents.id);
    expect(events).toHaveLength(1);
    expect(events[0].payload).toMatchObject({ plan: 'growth' });

    // Without options only the plan changes.
    expect((await parley('plan', 'set', domain, 'starter')).code).toBe(0);
    const later = await accountWithPlan(domain);
    expect(later.plan.key).toBe('starter');
    expect(later.account.subscriptionStatus).toBe('active');
  });

  test('an unknown plan or domain is refused with a message and exit code 1', async () => {
    const { domain } = await createTestAccount();
    const unknownPlan = await parley('plan', 'set', domain, 'platinum');
    expect(unknownPlan.code).toBe(1);
    expect(unknownPlan.stderr).toContain('No plan "platinum". Plans: trial, starter, growth, enterprise, free.');
    expect((await accountWithPlan(domain)).plan.key).toBe('trial');

    const unknownDomain = await parley('plan', 'set', 'nosuchaccount', 'growth');
    expect(unknownDomain.code).toBe(1);
    expect(unknownDomain.stderr).toContain('No account with domain "nosuchaccount"');
  });

  test('bad usage prints what is wrong and the usage, exit code 1', async () => {
    const cases: [string[], string][] = [
      [[], 'No command given.'],
      [['plan', 'frob'], 'Unknown command "plan frob".'],
      [['plan', 'set', 'acme'], '"plan set" needs an account domain and a plan key'],
      [['plan', 'set', 'acme', 'growth', '--status', 'paused'], '--status must be one of trialing, active, cancelled (got "paused").'],
      [['plan', 'set', 'acme', 'growth', '--trial-ends', '2030-02-30'], '--trial-ends must be a date written YYYY-MM-DD (got "2030-02-30").'],
      [['plan', 'set', 'acme', 'growth', '--colour', 'red'], "Unknown option '--colour'"],
    ];
    for (const [args, message] of cases) {
      const res = await parley(...args);
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.stderr).toContain(message);
      expect(res.stderr).toContain('Usage: npm run parley -- <command>');
    }
    const help = await parley('help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('plan set <domain> <planKey>');
  });

  test('plan list and account list show what is in the database', async () => {
    const { domain } = await createTestAccount();
    const plans = await parley('plan', 'list');
    expect(plans.code).toBe(0);
    expect(plans.stdout.split('\n')[0]).toMatch(/^KEY\s+NAME\s+ACCOUNTS\s+AREAS$/);
    for (const key of ['trial', 'starter', 'growth', 'enterprise']) expect(plans.stdout).toMatch(new RegExp(`^${key}\\s`, 'm'));

    const accounts = await parley('account', 'list');
    expect(accounts.code).toBe(0);
    expect(accounts.stdout).toMatch(new RegExp(`^${domain}\\s+${domain}\\s+trial\\s+trialing\\s+\\d{4}-\\d{2}-\\d{2}\\s+1\\s`, 'm'));
  });
});

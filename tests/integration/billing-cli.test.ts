import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, test } from 'vitest';
import { getDb, schema } from '../../db/client';
import { runScript } from '../helpers/process';

// The operator prices plans with the CLI (ADR 074), as its own process against this file's database.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-billing-cli-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const parley = (...args: string[]) => runScript('server/cli.ts', args, { ...process.env, DATABASE_URL: process.env.DATABASE_URL, PARLEY_DATA_DIR: dataDir });

describe('parley plan price', () => {
  test('prices a plan per seat, monthly and yearly, and refuses bad amounts before touching the database', async () => {
    const key = `cli${crypto.randomBytes(3).toString('hex')}`;
    await getDb().insert(schema.plans).values({ key, name: 'Operator plan', features: {} });
    const res = await parley('plan', 'price', key, '--monthly', '29', '--yearly', '290.50', '--currency', 'EUR', '--sellable', 'yes');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Operator plan');
    expect(res.stdout).toContain('€29.00 per seat per month');
    const [plan] = await getDb().select().from(schema.plans).where(eq(schema.plans.key, key));
    expect(plan).toMatchObject({ seatPriceMonthly: 2900, seatPriceYearly: 29050, currency: 'eur', sellable: true });

    const bad = await parley('plan', 'price', key, '--monthly', '12,5');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--monthly must be an amount such as 19 or 19.50');
    const none = await parley('plan', 'price', 'no-such-plan', '--monthly', '1');
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('No plan "no-such-plan"');
  });
});

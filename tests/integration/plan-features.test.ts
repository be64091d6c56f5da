import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import type { PlanFeatures } from '../../db/schema/accounts';
import { createTestAccount, givePlan } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

/**
 * Every action that calls requireFeature is found in app/routes (so a new gated action is walked the day it is
 * added) and posted to by the owner of an account whose plan has no features: each answers 403 and changes
 * nothing. Custom roles are the plan feature teamManagement/customRoles (ADR 022).
 */

let app: Awaited<ReturnType<typeof startTestApp>>;
let build: ServerBuild;

beforeAll(async () => {
  build = (await import(pathToFileURL(path.resolve('build/index.js')).href)) as ServerBuild;
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

function routePath(id: string) {
  const parts: string[] = [];
  for (let r = build.routes[id]; r; r = r.parentId ? build.routes[r.parentId] : (undefined as never)) if (r.path) parts.unshift(r.path);
  const joined = parts
    .join('/')
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith(':') ? 'new' : seg))
    .join('/');
  return `/${joined}${build.routes[id].index ? '?index' : ''}`;
}

/** Route modules whose action runs a feature guard, with the features they name. */
function gatedActions() {
  const dir = path.resolve('app/routes');
  const found: { id: string; features: string[] }[] = [];
  for (const file of fs.readdirSync(dir)) {
    const source = fs.readFileSync(path.join(dir, file), 'utf8');
    const action = source.indexOf('export async function action');
    if (action < 0) continue;
    const body = source.slice(action, source.indexOf('\nexport ', action + 10) > 0 ? source.indexOf('\nexport ', action + 10) : undefined);
    const features = [...body.matchAll(/requireFeature\(request, '([^']+)'/g)].map((m) => m[1]);
    if (features.length) found.push({ id: `routes/${file.replace(/\.tsx?$/, '')}`, features });
  }
  return found;
}

async function accountOnPlan(features: PlanFeatures) {
  const a = await createTestAccount();
  await givePlan(a.account.id, features);
  return { ...a, cookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }) };
}

describe('plan features', () => {
  it('refuses every gated action under a plan without its feature', async () => {
    const gated = gatedActions();
    expect(gated.map((g) => g.id)).toContain('routes/_app.settings.roles.$roleId');
    expect(gated.length).toBeGreaterThan(10);
    const s = await accountOnPlan({});
    const answers: string[] = [];
    for (const { id, features } of gated) {
      expect(build.routes[id], `${id} is in the build`).toBeTruthy();
      for (const intent of ['save', 'delete']) {
        const res = await app.request(routePath(id), {
          domain: s.domain,
          cookie: s.cookie,
          form: { intent, name: 'Gated', role: 'Gated', permissions: 'view_conversations' },
        });
        if (res.status !== 403) answers.push(`${res.status} ${routePath(id)} intent=${intent} (${features.join(', ')})`);
      }
    }
    expect(answers).toEqual([]);
  });

  it('custom roles need teamManagement/customRoles: without it none is created; with it the same form creates one', async () => {
    const without = await accountOnPlan({ teamManagement: { enabled: true, teams: true } });
    const form = { intent: 'save', role: 'Night shift', description: '', permissions: 'manage_tags' };
    const refused = await app.request('/settings/roles/new', { domain: without.domain, cookie: without.cookie, form });
    expect(refused.status).toBe(403);
    expect((await app.request('/settings/roles/new', { domain: without.domain, cookie: without.cookie })).status).toBe(403);
    const custom = await getDb()
      .select()
      .from(schema.roles)
      .where(and(eq(schema.roles.accountId, without.account.id), isNull(schema.roles.kind)));
    expect(custom).toEqual([]);

    const withFeature = await accountOnPlan({ teamManagement: { enabled: true, customRoles: true } });
    const created = await app.request('/settings/roles/new', { domain: withFeature.domain, cookie: withFeature.cookie, form });
    expect(created.status).toBe(302);
    const rows = await getDb()
      .select()
      .from(schema.roles)
      .where(and(eq(schema.roles.accountId, withFeature.account.id), isNull(schema.roles.kind)));
    expect(rows.map((r) => r.name)).toEqual(['Night shift']);
  });
});

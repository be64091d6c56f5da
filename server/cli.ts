import { parseArgs } from 'node:util';
import path from 'node:path';
import { ConfigError, getConfig, parseConfig } from '../app/utils/env.server';
import { findAccountByDomain, findPlanByKey, listAccounts, listPlans, setAccountPlan } from '../app/models/accounts/accounts.server';
import { withDatabase } from './boot';
import { addOperator, issueOperatorLink, listOperators, OperatorInputError, removeOperator } from '../app/models/operations/operators.server';
import { bareLink } from '../app/utils/tenant.server';
import { rebuildAllAnalytics, rebuildAnalytics } from '../app/models/analytics/projection.server';
import { parsePlanPriceOptions, setPlanPrice, type PlanPriceChange } from '../app/models/billing/plans.server';
import { formatMoney } from '../app/models/billing/money';
import { LocalFileStorage } from '../app/models/storage/local-files.server';
import { migrateLocalFiles } from '../app/models/storage/migrate.server';
import { S3FileStorage } from '../app/models/storage/s3-files.server';
import { getFileStorage } from '../app/models/storage/files.server';
import { BackupError, restoreBackup } from '../app/models/operations/backup-archive.server';
import { runRecordedBackup } from '../app/models/operations/backups.server';

/**
 * `npm run parley -- <command>`: operator commands run against the database the server uses
 * (DATABASE_URL, or the embedded PostgreSQL under PARLEY_DATA_DIR, shared with a running Parley).
 */
const USAGE = `Usage: npm run parley -- <command>

Commands:
  plan list                                   the plans and how many accounts are on each
  plan set <domain> <planKey> [options]       move an account to another plan
      --status trialing|active|cancelled      also set the subscription status
      --trial-ends YYYY-MM-DD                 also set the day the trial ends (end of that day, UTC)
  plan price <planKey> [options]              price a plan for billing (PARLEY_BILLING=on), per seat
      --monthly 19.00 --yearly 190.00         the price of one seat (agent) per month and per year
      --currency usd                          ISO 4217 code (default: unchanged)
      --sellable yes|no                       offered on My Plan or not
      --trial-days N                          (plan "trial") days of a new account's trial
  account list                                every account with its plan and status
  operator add <email>                        name an operator of the console (https://APP_HOST/operator); prints a
                                              one-time link, valid 24 hours, to set the operator's password
  operator link <email>                       a new set-password link for an operator (a forgotten password)
  operator remove <email>                     remove an operator; their signed-in browsers are signed out
  operator list                               the operators
  analytics rebuild [--account <domain>]      recompute the analytics projections from the event log (all accounts,
                                              or one)
  storage migrate                             copy the stored files of PARLEY_DATA_DIR into the S3 bucket (S3_BUCKET,
                                              S3_ENDPOINT...); files already there are skipped, local files are kept
  backup [--out FILE_OR_DIR]                  one archive (.tar.gz) of the database and every stored file, with a
                                              manifest of checksums; default: PARLEY_BACKUP_DIR (PARLEY_DATA_DIR/backups)
  restore <archive> [--force]                 brings an archive into an EMPTY installation (this DATABASE_URL or
                                              PARLEY_DATA_DIR, and its file storage), then applies this version's newer
                                              migrations; --force replaces an installation that holds accounts or files
  help                                        this text
`;

const STATUSES = ['trialing', 'active', 'cancelled'] as const;
type Status = (typeof STATUSES)[number];

/** Bad usage: said before the database is touched. */
class UsageError extends Error {}

type Command =
  | { name: 'help' }
  | { name: 'plan list' }
  | { name: 'account list' }
  | { name: 'operator add' | 'operator link' | 'operator remove'; email: string }
  | { name: 'operator list' }
  | { name: 'analytics rebuild'; domain?: string }
  | { name: 'storage migrate' }
  | { name: 'backup'; out?: string }
  | { name: 'restore'; archive: string; force: boolean }
  | { name: 'plan set'; domain: string; planKey: string; status?: Status; trialEndsAt?: Date }
  | { name: 'plan price'; planKey: string; price: PlanPriceChange };

function parseCommand(argv: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        status: { type: 'string' },
        'trial-ends': { type: 'string' },
        monthly: { type: 'string' },
        yearly: { type: 'string' },
        currency: { type: 'string' },
        sellable: { type: 'string' },
        'trial-days': { type: 'string' },
        account: { type: 'string' },
        out: { type: 'string' },
        force: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { positionals: args, values } = parsed;
  if (values.help || args[0] === 'help') return { name: 'help' };
  if (args.length === 0) throw new UsageError('No command given.');
  const [group, verb, ...rest] = args;
  const noOptions = (cmd: string) => {
    if (values.status !== undefined || values['trial-ends'] !== undefined) throw new UsageError(`"${cmd}" takes no options.`);
  };
  if (group === 'analytics' && verb === 'rebuild') {
    if (rest.length) throw new UsageError('"analytics rebuild" takes no arguments; name one account with --account <domain>.');
    noOptions('analytics rebuild');
    return { name: 'analytics rebuild', domain: values.account };
  }
  if (values.account !== undefined) throw new UsageError('--account goes with "analytics rebuild" only.');
  if (group === 'backup') {
    if (verb !== undefined) throw new UsageError('"backup" takes no arguments; name the archive or its directory with --out.');
    if (values.force) throw new UsageError('--force goes with "restore" only.');
    noOptions('backup');
    return { name: 'backup', out: values.out };
  }
  if (values.out !== undefined) throw new UsageError('--out goes with "backup" only.');
  if (group === 'restore') {
    if (verb === undefined || rest.length) throw new UsageError('"restore" needs one archive, e.g. "restore /backups/parley-backup-2026-12-03T02-30-00Z.tar.gz".');
    noOptions('restore');
    return { name: 'restore', archive: verb, force: values.force === true };
  }
  if (values.force) throw new UsageError('--force goes with "restore" only.');
  if (group === 'storage' && verb === 'migrate') {
    if (rest.length) throw new UsageError('"storage migrate" takes no arguments: the bucket is the one S3_BUCKET names.');
    noOptions('storage migrate');
    return { name: 'storage migrate' };
  }
  if (group === 'operator') {
    noOptions(`operator ${verb ?? ''}`.trim());
    if (verb === 'list') {
      if (rest.length) throw new UsageError('"operator list" takes no arguments.');
      return { name: 'operator list' };
    }
    if (verb === 'add' || verb === 'link' || verb === 'remove') {
      if (rest.length !== 1) throw new UsageError(`"operator ${verb}" needs one email address, e.g. "operator ${verb} ops@example.com".`);
      return { name: `operator ${verb}`, email: rest[0] };
    }
  }
  if (group === 'plan' && verb === 'list') {
    if (rest.length) throw new UsageError(`"plan list" takes no arguments.`);
    noOptions('plan list');
    return { name: 'plan list' };
  }
  if (group === 'account' && verb === 'list') {
    if (rest.length) throw new UsageError(`"account list" takes no arguments.`);
    noOptions('account list');
    return { name: 'account list' };
  }
  if (group === 'plan' && verb === 'price') {
    if (rest.length !== 1) throw new UsageError('"plan price" needs a plan key, e.g. "plan price growth --monthly 49 --yearly 490".');
    try {
      return { name: 'plan price', planKey: rest[0], price: parsePlanPriceOptions(values) };
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  if (group === 'plan' && verb === 'set') {
    if (rest.length !== 2) throw new UsageError('"plan set" needs an account domain and a plan key, e.g. "plan set acme growth".');
    const [domain, planKey] = rest;
    const status = values.status;
    if (status !== undefined && !STATUSES.includes(status as Status)) {
      throw new UsageError(`--status must be one of ${STATUSES.join(', ')} (got "${status}").`);
    }
    const trialEnds = values['trial-ends'];
    let trialEndsAt: Date | undefined;
    if (trialEnds !== undefined) {
      trialEndsAt = parseDay(trialEnds);
      if (!trialEndsAt) throw new UsageError(`--trial-ends must be a date written YYYY-MM-DD (got "${trialEnds}").`);
    }
    return { name: 'plan set', domain: domain.toLowerCase(), planKey, status: status as Status | undefined, trialEndsAt };
  }
  throw new UsageError(`Unknown command "${args.join(' ')}".`);
}

/** The end of the given day in UTC, or undefined when it is not a real calendar date. */
function parseDay(value: string) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d, 23, 59, 59, 999));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return undefined;
  return date;
}

/** A failure the operator can fix (unknown domain or plan): a message, exit code 1. */
class CommandError extends Error {}

/**
 * Copies the local file storage into the bucket (ADR 141), before the nodes switch to PARLEY_STORAGE=s3. Needs no
 * database. Never prints the credentials.
 */
async function migrateStorage() {
  const config = getConfig();
  const s3 = config.storage.s3;
  if (!s3) throw new CommandError('Set S3_BUCKET (and S3_ENDPOINT for a self-hosted store, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY) to the bucket to copy into.');
  const source = new LocalFileStorage(config.dataDir);
  const target = new S3FileStorage(s3);
  try {
    const problem = await target.checkBucket();
    if (problem) throw new CommandError(problem);
    const where = `bucket "${s3.bucket}"${s3.endpoint ? ` at ${s3.endpoint}` : ` (${s3.region})`}${s3.prefix ? ` under "${s3.prefix}"` : ''}`;
    console.log(`Copying the files under ${source.root} into the ${where}...`);
    const report = await migrateLocalFiles({ source, target, onFailure: (f) => console.error(`failed: ${f.key}: ${f.reason}`) });
    console.log(
      `Copied ${report.copied} ${report.copied === 1 ? 'file' : 'files'} (${formatBytes(report.bytes)}), skipped ${report.skipped} already in the bucket, ${report.failed} failed.`,
    );
    console.log(`The local files were left in place: remove them once every node runs with PARLEY_STORAGE=s3.`);
    if (report.failed > 0) throw new CommandError(`${report.failed} ${report.failed === 1 ? 'file was' : 'files were'} not copied; run the command again to retry them.`);
  } finally {
    await target.close();
  }
}

function formatBytes(n: number) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  return `${(n / (1024 * 1024 * 1024)).toFixed(2)} GB`;
}

function printLink(email: string, token: string, expiresAt: Date) {
  console.log(`Set the password of ${email} at this link (once, before ${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC):`);
  console.log(`  ${bareLink(`/operator/set-password?token=${encodeURIComponent(token)}`)}`);
  console.log(`Then sign in at ${bareLink('/operator/signin')}.`);
}

async function run(cmd: Exclude<Command, { name: 'help' | 'storage migrate' }>) {
  switch (cmd.name) {
    case 'backup': {
      const out = cmd.out ?? `${getConfig().backup.dir}${path.sep}`;
      let result;
      try {
        result = await runRecordedBackup({ kind: 'command', out, log: (m) => console.error(m) });
      } catch (err) {
        // Recorded in backup_runs already; the operator gets the reason and exit code 1.
        throw new CommandError(`The backup failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      const m = result.manifest;
      console.log(
        `Wrote ${result.path} (${formatBytes(result.sizeBytes)}) in ${result.seconds.toFixed(1)} s: ${m.totals.rows} rows in ${m.totals.tables} tables ` +
          `(${formatBytes(m.totals.databaseBytes)}), ${m.totals.files} ${m.totals.files === 1 ? 'file' : 'files'} (${formatBytes(m.totals.fileBytes)}), migration ${m.migration.tag}.`,
      );
      if (m.secrets.sessionSecret) console.log('The archive holds the generated session secret of PARLEY_DATA_DIR: keep it as safe as the database itself.');
      return;
    }
    case 'restore': {
      const config = getConfig();
      let result;
      try {
        result = await restoreBackup({
          archive: cmd.archive,
          databaseUrl: process.env.DATABASE_URL!,
          storage: getFileStorage(),
          config,
          reloadSecretKey: () => parseConfig().secretKey,
          force: cmd.force,
          log: (m) => console.error(m),
        });
      } catch (err) {
        if (err instanceof BackupError) throw new CommandError(err.message);
        throw err;
      }
      console.log(
        `Restored ${result.rows} rows and ${result.files} ${result.files === 1 ? 'file' : 'files'} from Parley ${result.manifest.parleyVersion} (${result.manifest.createdAt}) in ${result.seconds.toFixed(1)} s` +
          (result.migrationsApplied.length ? `; applied ${result.migrationsApplied.length} newer ${result.migrationsApplied.length === 1 ? 'migration' : 'migrations'} (${result.migrationsApplied.join(', ')})` : '') +
          (result.droppedJobs ? `; ${result.droppedJobs} queued jobs of queues this version no longer has were left out` : '') +
          '. Start Parley.',
      );
      return;
    }
    case 'operator add': {
      try {
        const { operator, token, expiresAt } = await addOperator({ email: cmd.email });
        console.log(`${operator.email} is now an operator.`);
        printLink(operator.email, token, expiresAt);
      } catch (err) {
        if (err instanceof OperatorInputError) throw new CommandError(err.message);
        throw err;
      }
      return;
    }
    case 'operator link': {
      try {
        const issued = await issueOperatorLink({ email: cmd.email });
        if (!issued) throw new CommandError(`${cmd.email} is not an operator. See "npm run parley -- operator list".`);
        printLink(issued.operator.email, issued.token, issued.expiresAt);
      } catch (err) {
        if (err instanceof OperatorInputError) throw new CommandError(err.message);
        throw err;
      }
      return;
    }
    case 'operator remove': {
      try {
        if (!(await removeOperator({ email: cmd.email }))) throw new CommandError(`${cmd.email} is not an operator. See "npm run parley -- operator list".`);
      } catch (err) {
        if (err instanceof OperatorInputError) throw new CommandError(err.message);
        throw err;
      }
      console.log(`${cmd.email.toLowerCase()} is no longer an operator.`);
      return;
    }
    case 'operator list': {
      const operators = await listOperators();
      if (operators.length === 0) {
        console.log('No operators yet. Name one with "npm run parley -- operator add <email>".');
        return;
      }
      printTable(
        ['EMAIL', 'PASSWORD', 'LAST SIGN-IN', 'ADDED'],
        operators.map((o) => [o.email, o.hasPassword ? 'set' : 'not set yet', o.lastSignInAt ? day(o.lastSignInAt) : '-', day(o.createdAt)]),
      );
      return;
    }
    case 'analytics rebuild': {
      const started = Date.now();
      if (cmd.domain) {
        const account = await findAccountByDomain(cmd.domain);
        if (!account) throw new CommandError(`No account with domain "${cmd.domain}". See "npm run parley -- account list".`);
        const { events } = await rebuildAnalytics({ accountId: account.id });
        console.log(`Rebuilt the analytics of ${cmd.domain} from ${events} events in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
        return;
      }
      const { accounts, events } = await rebuildAllAnalytics();
      console.log(`Rebuilt the analytics of ${accounts} accounts from ${events} events in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
      return;
    }
    case 'plan list': {
      const plans = await listPlans();
      printTable(
        ['KEY', 'NAME', 'ACCOUNTS', 'AREAS'],
        plans.map((p) => [p.key, p.name, String(p.accounts), enabledAreas(p.features)]),
      );
      return;
    }
    case 'account list': {
      const accounts = await listAccounts();
      if (accounts.length === 0) {
        console.log('No accounts yet.');
        return;
      }
      printTable(
        ['DOMAIN', 'NAME', 'PLAN', 'STATUS', 'TRIAL ENDS', 'USERS', 'CREATED'],
        accounts.map((a) => [a.domain, a.name, a.plan, a.status, a.trialEndsAt ? day(a.trialEndsAt) : '-', String(a.users), day(a.createdAt)]),
      );
      return;
    }
    case 'plan price': {
      const plan = await setPlanPrice({ planKey: cmd.planKey, change: cmd.price });
      if (!plan) throw new CommandError(`No plan "${cmd.planKey}". Plans: ${(await listPlans()).map((p) => p.key).join(', ')}.`);
      console.log(
        `${plan.name} (${plan.key}): ${formatMoney(plan.seatPriceMonthly, plan.currency)} per seat per month, ${formatMoney(plan.seatPriceYearly, plan.currency)} per seat per year, ` +
          `trial ${plan.trialDays} days, ${plan.sellable ? 'offered on My Plan' : 'not offered'}.`,
      );
      return;
    }
    case 'plan set': {
      const account = await findAccountByDomain(cmd.domain);
      if (!account) throw new CommandError(`No account with domain "${cmd.domain}". See "npm run parley -- account list".`);
      const plans = await listPlans();
      if (!(await findPlanByKey(cmd.planKey))) {
        throw new CommandError(`No plan "${cmd.planKey}". Plans: ${plans.map((p) => p.key).join(', ')}.`);
      }
      const { plan } = await setAccountPlan({ domain: cmd.domain, planKey: cmd.planKey, status: cmd.status, trialEndsAt: cmd.trialEndsAt });
      const after = await findAccountByDomain(cmd.domain);
      console.log(
        `${after.domain} is now on the ${plan.name} plan (${plan.key}), subscription ${after.subscriptionStatus}` +
          (after.trialEndsAt ? `, trial ending ${day(after.trialEndsAt)}` : '') +
          '.',
      );
      return;
    }
  }
}

function enabledAreas(features: Record<string, Record<string, boolean | number>>) {
  const areas = Object.entries(features)
    .filter(([, flags]) => flags.enabled === true)
    .map(([area]) => area)
    .sort();
  return areas.length ? areas.join(', ') : '-';
}

function day(d: Date) {
  return d.toISOString().slice(0, 10);
}

function printTable(header: string[], rows: string[][]) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const row of [header, ...rows]) console.log(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
}

async function main() {
  let cmd: Command;
  try {
    cmd = parseCommand(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${err.message}\n\n${USAGE}`);
    return 1;
  }
  if (cmd.name === 'help') {
    console.log(USAGE);
    return 0;
  }
  try {
    getConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  try {
    if (cmd.name === 'storage migrate') await migrateStorage();
    else await withDatabase(() => run(cmd), { log: (m) => console.error(m) });
    return 0;
  } catch (err) {
    if (err instanceof CommandError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    if (process.env.LOG_LEVEL === 'debug') console.error(err);
    process.exit(1);
  },
);

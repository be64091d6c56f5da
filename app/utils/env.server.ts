import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { singleton } from './singleton.server';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** An on/off variable: only these spellings, so that a typo is an error instead of a silent "off". */
const flag = (name: string) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: `${name} must be true or false` })
    .default('false')
    .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

/** One cron field: *, a number, a range, a list, each with an optional step (names of months and days too). */
const CRON_FIELD = String.raw`(\*|[0-9a-z]+(-[0-9a-z]+)?)(\/[0-9]+)?(,(\*|[0-9a-z]+(-[0-9a-z]+)?)(\/[0-9]+)?)*`;
const CRON_PATTERN = new RegExp(`^${CRON_FIELD}(\\s+${CRON_FIELD}){4}$`, 'i');

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: z.coerce
    .number({ error: 'PORT must be a number' })
    .int('PORT must be a whole number')
    .min(1, 'PORT must be between 1 and 65535')
    .max(65535, 'PORT must be between 1 and 65535')
    .default(3000),
  APP_HOST: z
    .string()
    .regex(/^[a-z0-9.-]+(:\d{1,5})?$/i, 'APP_HOST must be a host name with an optional port, e.g. parley.example.com or localhost:3000')
    .optional(),
  HELP_HOST: z
    .string()
    .regex(/^[a-z0-9.-]+(:\d{1,5})?$/i, 'HELP_HOST must be a host name with an optional port, e.g. help.example.com')
    .optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// or postgresql:// URL')
    .optional(),
  PARLEY_DATA_DIR: z.string().min(1, 'PARLEY_DATA_DIR must not be empty').default('./.data'),
  /** Where stored files live (ADR 141): this machine's PARLEY_DATA_DIR, or an S3-compatible bucket every node shares. */
  PARLEY_STORAGE: z.enum(['local', 's3'], { error: 'PARLEY_STORAGE must be "local" (default: files under PARLEY_DATA_DIR) or "s3" (an S3-compatible bucket, see S3_BUCKET)' }).default('local'),
  S3_BUCKET: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'S3_BUCKET must be a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens')
    .optional(),
  S3_ENDPOINT: z.url({ protocol: /^https?$/, error: 'S3_ENDPOINT must be an http(s) URL of the object store, e.g. https://minio.example.com:9000' }).optional(),
  S3_REGION: z.string().trim().regex(/^[a-z0-9-]{1,50}$/i, 'S3_REGION must be a region name, e.g. us-east-1').default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().trim().min(1, 'S3_ACCESS_KEY_ID must not be blank').optional(),
  S3_SECRET_ACCESS_KEY: z.string().trim().min(1, 'S3_SECRET_ACCESS_KEY must not be blank').optional(),
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'S3_FORCE_PATH_STYLE must be true or false' })
    .transform((v) => ['true', '1', 'yes', 'on'].includes(v))
    .optional(),
  S3_PREFIX: z
    .string()
    .trim()
    .regex(/^(?!.*\.\.)[A-Za-z0-9._/-]{1,200}$/, 'S3_PREFIX must be letters, digits, dots, hyphens, underscores and slashes, e.g. parley/production')
    .optional(),
  SESSION_SECRET: z.string().min(32, 'SESSION_SECRET must be at least 32 characters long').optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Parley <no-reply@parley.local>'),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  SMTP_INBOUND_PORT: z.coerce
    .number({ error: 'SMTP_INBOUND_PORT must be a number (0 turns the inbound mail server off)' })
    .int('SMTP_INBOUND_PORT must be a whole number')
    .min(0, 'SMTP_INBOUND_PORT must be between 0 and 65535')
    .max(65535, 'SMTP_INBOUND_PORT must be between 0 and 65535')
    .default(2525),
  INBOUND_EMAIL_DOMAIN: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i, 'INBOUND_EMAIL_DOMAIN must be a domain name, e.g. mail.parley.example.com')
    .optional(),
  /** Metrics (ADR 150): a listener of their own, and/or /metrics on the main port behind a bearer token. */
  METRICS_PORT: z.coerce
    .number({ error: 'METRICS_PORT must be a number (the port of the /metrics listener; unset: no listener)' })
    .int('METRICS_PORT must be a whole number')
    .min(1, 'METRICS_PORT must be between 1 and 65535')
    .max(65535, 'METRICS_PORT must be between 1 and 65535')
    .optional(),
  METRICS_HOST: z
    .string()
    .trim()
    .regex(/^([a-z0-9.-]+|[0-9a-f:]+)$/i, 'METRICS_HOST must be an address to bind the metrics listener to, e.g. 127.0.0.1 (default), 0.0.0.0 or ::')
    .default('127.0.0.1'),
  METRICS_TOKEN: z
    .string()
    .trim()
    .regex(/^[\x21-\x7e]{16,200}$/, 'METRICS_TOKEN must be 16 to 200 printable characters without spaces (e.g. openssl rand -hex 24)')
    .optional(),
  PARLEY_BILLING: z.enum(['on', 'off'], { error: 'PARLEY_BILLING must be "on" (trials and plans are billed) or "off" (default: a self-hosted installation)' }).default('off'),
  PARLEY_ENGINE: z
    .enum(['inline', 'off'], { error: 'PARLEY_ENGINE must be "inline" (default) or "off" (run `npm run engine` separately)' })
    .default('inline'),
  // The payment provider behind billing (ADR 073). Stripe's secret key and webhook signing secret; the base is a stand-in in tests.
  STRIPE_API_BASE: z.url({ protocol: /^https?$/, error: 'STRIPE_API_BASE must be an http(s) URL, e.g. https://api.stripe.com' }).default('https://api.stripe.com'),
  STRIPE_SECRET_KEY: z.string().trim().regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/, 'STRIPE_SECRET_KEY must be a Stripe secret key (sk_live_..., sk_test_... or a restricted rk_ key)').optional(),
  STRIPE_WEBHOOK_SECRET: z.string().trim().regex(/^whsec_[A-Za-z0-9]+$/, 'STRIPE_WEBHOOK_SECRET must be the endpoint signing secret Stripe shows (whsec_...)').optional(),
  PARLEY_BILLING_GRACE_DAYS: z.coerce.number({ error: 'PARLEY_BILLING_GRACE_DAYS must be a number of days' }).int().min(0).max(90).default(7),
  TWILIO_API_BASE: z.url({ protocol: /^https?$/, error: 'TWILIO_API_BASE must be an http(s) URL, e.g. https://api.twilio.com' }).default('https://api.twilio.com'),
  META_GRAPH_API_BASE: z.url({ protocol: /^https?$/, error: 'META_GRAPH_API_BASE must be an http(s) URL, e.g. https://graph.facebook.com' }).default('https://graph.facebook.com'),
  TWITTER_API_BASE: z.url({ protocol: /^https?$/, error: 'TWITTER_API_BASE must be an http(s) URL, e.g. https://api.x.com' }).default('https://api.x.com'),
  PARLEY_ALLOW_PRIVATE_DESTINATIONS: flag('PARLEY_ALLOW_PRIVATE_DESTINATIONS'),
  TRUST_PROXY: z
    .string()
    .trim()
    .regex(
      /^(false|\d{1,2}|[a-z0-9.:/,\s]+)$/i,
      'TRUST_PROXY must name the proxies in front of Parley: addresses or subnets (10.0.0.5, 10.0.0.0/8), loopback, linklocal, uniquelocal, comma-separated, or a number of hops',
    )
    .default('false'),
  PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION: flag('PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION'),
  /** Google Calendar for meetings (ADR 072): the OAuth client, and where Google's endpoints are (stand-ins in tests). */
  GOOGLE_CLIENT_ID: z.string().trim().optional(),
  GOOGLE_CLIENT_SECRET: z.string().trim().optional(),
  GOOGLE_ACCOUNTS_BASE: z.url({ protocol: /^https?$/, error: 'GOOGLE_ACCOUNTS_BASE must be an http(s) URL, e.g. https://accounts.google.com' }).default('https://accounts.google.com'),
  GOOGLE_OAUTH_BASE: z.url({ protocol: /^https?$/, error: 'GOOGLE_OAUTH_BASE must be an http(s) URL, e.g. https://oauth2.googleapis.com' }).default('https://oauth2.googleapis.com'),
  GOOGLE_API_BASE: z.url({ protocol: /^https?$/, error: 'GOOGLE_API_BASE must be an http(s) URL, e.g. https://www.googleapis.com' }).default('https://www.googleapis.com'),
  /** Gmail and Google Workspace inboxes over OAuth (ADR 158); unset, the Calendar client above is used when it is set. */
  GOOGLE_OAUTH_CLIENT_ID: z.string().trim().optional(),
  GOOGLE_OAUTH_CLIENT_SECRET: z.string().trim().optional(),
  /** Microsoft 365 (Exchange Online) inboxes over OAuth (ADR 158): the Entra ID app, its tenant, where its endpoints are. */
  MICROSOFT_OAUTH_CLIENT_ID: z.string().trim().optional(),
  MICROSOFT_OAUTH_CLIENT_SECRET: z.string().trim().optional(),
  MICROSOFT_OAUTH_TENANT: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9.-]{1,100}$/, 'MICROSOFT_OAUTH_TENANT must be a tenant id, a domain, or one of common, organizations')
    .default('organizations'),
  MICROSOFT_LOGIN_BASE: z.url({ protocol: /^https?$/, error: 'MICROSOFT_LOGIN_BASE must be an http(s) URL, e.g. https://login.microsoftonline.com' }).default('https://login.microsoftonline.com'),
  /** AI reply help (ADR 081): the installation's OpenAI-compatible chat-completions server; accounts may set their own. */
  PARLEY_AI_BASE_URL: z.url({ protocol: /^https?$/, error: 'PARLEY_AI_BASE_URL must be an http(s) URL, e.g. https://api.openai.com/v1' }).optional(),
  PARLEY_AI_MODEL: z.string().trim().min(1, 'PARLEY_AI_MODEL must name a model').max(200).default('gpt-4o-mini'),
  PARLEY_AI_API_KEY: z.string().trim().optional(),
  PARLEY_AI_MONTHLY_TOKEN_CAP: z.coerce.number({ error: 'PARLEY_AI_MONTHLY_TOKEN_CAP must be a number of tokens' }).int().min(0).default(500_000),
  PARLEY_AI_TIMEOUT_MS: z.coerce.number({ error: 'PARLEY_AI_TIMEOUT_MS must be a number of milliseconds' }).int().min(1000).max(600_000).default(30_000),
  /** Integrations (ADR 078): the key that seals their tokens, each provider's OAuth client, and where it is (stand-ins in tests). */
  PARLEY_SECRET_KEY: z.string().trim().regex(/^([0-9a-f]{64}|[A-Za-z0-9+/]{43}=)$/i, 'PARLEY_SECRET_KEY must be 32 random bytes as 64 hex characters or base64 (openssl rand -hex 32)').optional(),
  SHOPIFY_CLIENT_ID: z.string().trim().optional(),
  SHOPIFY_CLIENT_SECRET: z.string().trim().optional(),
  SHOPIFY_API_BASE: z.url({ protocol: /^https?$/, error: 'SHOPIFY_API_BASE must be an http(s) URL (leave it unset to reach each shop at https://{shop}.myshopify.com)' }).optional(),
  GITHUB_CLIENT_ID: z.string().trim().optional(),
  GITHUB_CLIENT_SECRET: z.string().trim().optional(),
  GITHUB_OAUTH_BASE: z.url({ protocol: /^https?$/, error: 'GITHUB_OAUTH_BASE must be an http(s) URL, e.g. https://github.com' }).default('https://github.com'),
  GITHUB_API_BASE: z.url({ protocol: /^https?$/, error: 'GITHUB_API_BASE must be an http(s) URL, e.g. https://api.github.com' }).default('https://api.github.com'),
  ASANA_CLIENT_ID: z.string().trim().optional(),
  ASANA_CLIENT_SECRET: z.string().trim().optional(),
  ASANA_OAUTH_BASE: z.url({ protocol: /^https?$/, error: 'ASANA_OAUTH_BASE must be an http(s) URL, e.g. https://app.asana.com' }).default('https://app.asana.com'),
  ASANA_API_BASE: z.url({ protocol: /^https?$/, error: 'ASANA_API_BASE must be an http(s) URL, e.g. https://app.asana.com/api/1.0' }).default('https://app.asana.com/api/1.0'),
  CLICKUP_CLIENT_ID: z.string().trim().optional(),
  CLICKUP_CLIENT_SECRET: z.string().trim().optional(),
  CLICKUP_OAUTH_BASE: z.url({ protocol: /^https?$/, error: 'CLICKUP_OAUTH_BASE must be an http(s) URL, e.g. https://app.clickup.com' }).default('https://app.clickup.com'),
  CLICKUP_API_BASE: z.url({ protocol: /^https?$/, error: 'CLICKUP_API_BASE must be an http(s) URL, e.g. https://api.clickup.com/api/v2' }).default('https://api.clickup.com/api/v2'),
  BIGCOMMERCE_API_BASE: z.url({ protocol: /^https?$/, error: 'BIGCOMMERCE_API_BASE must be an http(s) URL, e.g. https://api.bigcommerce.com' }).default('https://api.bigcommerce.com'),
  HUBSPOT_CLIENT_ID: z.string().trim().optional(),
  HUBSPOT_CLIENT_SECRET: z.string().trim().optional(),
  HUBSPOT_OAUTH_BASE: z.url({ protocol: /^https?$/, error: 'HUBSPOT_OAUTH_BASE must be an http(s) URL, e.g. https://app.hubspot.com' }).default('https://app.hubspot.com'),
  HUBSPOT_API_BASE: z.url({ protocol: /^https?$/, error: 'HUBSPOT_API_BASE must be an http(s) URL, e.g. https://api.hubapi.com' }).default('https://api.hubapi.com'),
  HUBSPOT_APP_ID: z.string().trim().regex(/^\d{1,12}$/, 'HUBSPOT_APP_ID must be the app\'s numeric id').optional(),
  HUBSPOT_DEVELOPER_API_KEY: z.string().trim().optional(),
  PIPEDRIVE_CLIENT_ID: z.string().trim().optional(),
  PIPEDRIVE_CLIENT_SECRET: z.string().trim().optional(),
  PIPEDRIVE_OAUTH_BASE: z.url({ protocol: /^https?$/, error: 'PIPEDRIVE_OAUTH_BASE must be an http(s) URL, e.g. https://oauth.pipedrive.com' }).default('https://oauth.pipedrive.com'),
  PIPEDRIVE_API_BASE: z.url({ protocol: /^https?$/, error: 'PIPEDRIVE_API_BASE must be an http(s) URL' }).optional(),
  /** Scheduled backups (ADR 151): a cron in UTC, where the archives go, how many are kept. */
  PARLEY_BACKUP_SCHEDULE: z
    .string()
    .trim()
    .regex(CRON_PATTERN, 'PARLEY_BACKUP_SCHEDULE must be a cron schedule of 5 fields in UTC (minute hour day month weekday), e.g. "30 2 * * *" for every night at 02:30')
    .optional(),
  PARLEY_BACKUP_DIR: z.string().trim().min(1, 'PARLEY_BACKUP_DIR must not be empty').optional(),
  PARLEY_BACKUP_KEEP: z.coerce
    .number({ error: 'PARLEY_BACKUP_KEEP must be a number of archives' })
    .int('PARLEY_BACKUP_KEEP must be a whole number')
    .min(1, 'PARLEY_BACKUP_KEEP must be at least 1')
    .max(1000, 'PARLEY_BACKUP_KEEP must be at most 1000')
    .default(7),
});

export type Config = {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  appHost: string;
  /** The help centres' own host: each knowledge base at {slug}.HELP_HOST (ADR 056); null when not set. */
  helpHost: string | null;
  databaseUrl: string | undefined;
  dataDir: string;
  /**
   * Stored files (ADR 141): the backend in use, and the bucket when S3_BUCKET is set (also with the local backend, so
   * that `npm run parley -- storage migrate` can copy into it before the switch).
   */
  storage: { backend: 'local' | 's3'; s3: S3Settings | null };
  sessionSecret: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  logLevel: (typeof LOG_LEVELS)[number];
  engine: 'inline' | 'off';
  /** Billing switched on (PARLEY_BILLING=on): new accounts start a trial, shown in a banner, that expires to the free plan. */
  billing: boolean;
  /** Stripe, the payment provider behind billing (ADR 073); null when no secret key is set. */
  stripe: { apiBase: string; secretKey: string; webhookSecret: string | null } | null;
  /** Days a past-due account keeps its plan's features before it falls back to the free plan (ADR 074). */
  billingGraceDays: number;
  /** Port of the inbound SMTP server that receives forwarded mail; 0 when it is off. */
  smtpInboundPort: number;
  /** /metrics (ADR 150): the listener's port (null: none) and address, and the bearer token (null: not on the main port). */
  metrics: { port: number | null; host: string; token: string | null };
  /** Domain of the inboxes' forwarding addresses (`<token>@<domain>`). */
  inboundEmailDomain: string;
  /** Where the SMS and social channels call their providers (stand-ins in tests), without a trailing slash. */
  twilioApiBase: string;
  metaGraphApiBase: string;
  twitterApiBase: string;
  /** Account-supplied destinations (SMS gateway, IMAP/SMTP servers) may be private addresses (ADR 021). */
  allowPrivateDestinations: boolean;
  /** Express's `trust proxy`: false (the default), a hop count, or the proxies' addresses and subnets. */
  trustProxy: false | number | string;
  /** Google Calendar (ADR 072): null without a client id and secret; bases without a trailing slash. */
  google: { clientId: string; clientSecret: string; accountsBase: string; oauthBase: string; apiBase: string } | null;
  /** Mail over OAuth (ADR 158): Google's and Microsoft's clients for IMAP/SMTP with XOAUTH2; null when not set up. */
  mailOAuth: {
    google: { clientId: string; clientSecret: string; accountsBase: string; oauthBase: string; apiBase: string } | null;
    microsoft: { clientId: string; clientSecret: string; tenant: string; loginBase: string } | null;
  };
  /** The development mailbox answers in production too (every sign-up code readable by anyone). */
  unsafeDevMailboxInProduction: boolean;
  /** AI reply help (ADR 081): the installation's server (null: none, accounts may set one) and the defaults. */
  ai: { server: { baseUrl: string; model: string; apiKey: string | null } | null; model: string; monthlyTokenCap: number; timeoutMs: number };
  /** The key that seals secrets at rest (app/utils/secret-box.server.ts, ADR 078): 32 bytes, derived from the session secret when not set. */
  secretKey: Buffer;
  /** Scheduled backups (ADR 151): null schedule when none; dir defaults to PARLEY_DATA_DIR/backups. */
  backup: { schedule: string | null; dir: string; keep: number };
  /** Integrations (ADR 078): each provider's OAuth client. */
  integrations: {
    shopify: { clientId: string; clientSecret: string; apiBase: string | null } | null;
    github: { clientId: string; clientSecret: string; oauthBase: string; apiBase: string } | null;
    asana: { clientId: string; clientSecret: string; oauthBase: string; apiBase: string } | null;
    clickup: { clientId: string; clientSecret: string; oauthBase: string; apiBase: string } | null;
    /** BigCommerce needs no OAuth client: each account gives its store hash and an API account's access token (ADR 098). */
    bigcommerce: { apiBase: string };
    /** HubSpot's public app (ADR 099): consent at oauthBase, API and token endpoint at apiBase. */
    hubspot: { clientId: string; clientSecret: string; oauthBase: string; apiBase: string; appId: string | null; developerApiKey: string | null } | null;
    /** Pipedrive's OAuth app (ADR 099); apiBase replaces each company's api_domain (tests' stand-in). */
    pipedrive: { clientId: string; clientSecret: string; oauthBase: string; apiBase: string | null } | null;
  };
};

export type S3Settings = {
  bucket: string;
  /** null: AWS's own endpoint for the region. */
  endpoint: string | null;
  region: string;
  /** null: the AWS SDK's default credential chain (AWS_* variables, an instance or task role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  forcePathStyle: boolean;
  /** Put before every key: '' or ending with '/'. */
  prefix: string;
};

/** What the storage variables cannot say one at a time: each missing partner is its own line. */
function storageProblems(env: Record<string, string | undefined>) {
  const problems: string[] = [];
  if (env.PARLEY_STORAGE?.trim() === 's3' && !env.S3_BUCKET) problems.push('S3_BUCKET: S3_BUCKET must be set when PARLEY_STORAGE=s3');
  if (env.S3_ACCESS_KEY_ID && !env.S3_SECRET_ACCESS_KEY) problems.push('S3_SECRET_ACCESS_KEY: S3_SECRET_ACCESS_KEY must be set with S3_ACCESS_KEY_ID');
  if (env.S3_SECRET_ACCESS_KEY && !env.S3_ACCESS_KEY_ID) problems.push('S3_ACCESS_KEY_ID: S3_ACCESS_KEY_ID must be set with S3_SECRET_ACCESS_KEY');
  return problems;
}

function storageConfig(e: z.infer<typeof EnvSchema>): Config['storage'] {
  const prefix = (e.S3_PREFIX ?? '').replace(/^\/+|\/+$/g, '');
  return {
    backend: e.PARLEY_STORAGE,
    s3: e.S3_BUCKET
      ? {
          bucket: e.S3_BUCKET,
          endpoint: e.S3_ENDPOINT ? e.S3_ENDPOINT.replace(/\/+$/, '') : null,
          region: e.S3_REGION,
          credentials: e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY } : null,
          // Self-hosted stores rarely have a wildcard DNS name per bucket; AWS wants virtual-hosted addresses.
          forcePathStyle: e.S3_FORCE_PATH_STYLE ?? Boolean(e.S3_ENDPOINT),
          prefix: prefix ? `${prefix}/` : '',
        }
      : null,
  };
}

export class ConfigError extends Error {
  constructor(public problems: string[]) {
    super(`Parley cannot start, the configuration is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Parses the environment once; every bad variable gets its own line in the error. */
export function parseConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const result = EnvSchema.safeParse(cleaned);
  const storageIssues = storageProblems(cleaned);
  if (!result.success || storageIssues.length > 0) {
    throw new ConfigError([...(result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)), ...storageIssues]);
  }
  const e = result.data;
  const dataDir = path.resolve(e.PARLEY_DATA_DIR);
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    appHost: (e.APP_HOST ?? `localhost:${e.PORT}`).toLowerCase(),
    helpHost: e.HELP_HOST ? e.HELP_HOST.toLowerCase() : null,
    databaseUrl: e.DATABASE_URL,
    dataDir,
    storage: storageConfig(e),
    sessionSecret: e.SESSION_SECRET ?? loadOrCreateSecret(dataDir),
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    logLevel: e.LOG_LEVEL,
    engine: e.PARLEY_ENGINE,
    billing: e.PARLEY_BILLING === 'on',
    stripe: e.STRIPE_SECRET_KEY ? { apiBase: e.STRIPE_API_BASE.replace(/\/+$/, ''), secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET ?? null } : null,
    billingGraceDays: e.PARLEY_BILLING_GRACE_DAYS,
    smtpInboundPort: e.SMTP_INBOUND_PORT,
    metrics: { port: e.METRICS_PORT ?? null, host: e.METRICS_HOST, token: e.METRICS_TOKEN ?? null },
    inboundEmailDomain: (e.INBOUND_EMAIL_DOMAIN ?? (e.APP_HOST ?? 'localhost').split(':')[0]).toLowerCase(),
    twilioApiBase: e.TWILIO_API_BASE.replace(/\/+$/, ''),
    metaGraphApiBase: e.META_GRAPH_API_BASE.replace(/\/+$/, ''),
    twitterApiBase: e.TWITTER_API_BASE.replace(/\/+$/, ''),
    allowPrivateDestinations: e.PARLEY_ALLOW_PRIVATE_DESTINATIONS,
    trustProxy: e.TRUST_PROXY === 'false' ? false : /^\d+$/.test(e.TRUST_PROXY) ? Number(e.TRUST_PROXY) : e.TRUST_PROXY,
    google:
      e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET
        ? {
            clientId: e.GOOGLE_CLIENT_ID,
            clientSecret: e.GOOGLE_CLIENT_SECRET,
            accountsBase: e.GOOGLE_ACCOUNTS_BASE.replace(/\/$/, ''),
            oauthBase: e.GOOGLE_OAUTH_BASE.replace(/\/$/, ''),
            apiBase: e.GOOGLE_API_BASE.replace(/\/$/, ''),
          }
        : null,
    mailOAuth: {
      google:
        (e.GOOGLE_OAUTH_CLIENT_ID && e.GOOGLE_OAUTH_CLIENT_SECRET) || (e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET)
          ? {
              clientId: (e.GOOGLE_OAUTH_CLIENT_ID && e.GOOGLE_OAUTH_CLIENT_SECRET ? e.GOOGLE_OAUTH_CLIENT_ID : e.GOOGLE_CLIENT_ID)!,
              clientSecret: (e.GOOGLE_OAUTH_CLIENT_ID && e.GOOGLE_OAUTH_CLIENT_SECRET ? e.GOOGLE_OAUTH_CLIENT_SECRET : e.GOOGLE_CLIENT_SECRET)!,
              accountsBase: e.GOOGLE_ACCOUNTS_BASE.replace(/\/$/, ''),
              oauthBase: e.GOOGLE_OAUTH_BASE.replace(/\/$/, ''),
              apiBase: e.GOOGLE_API_BASE.replace(/\/$/, ''),
            }
          : null,
      microsoft:
        e.MICROSOFT_OAUTH_CLIENT_ID && e.MICROSOFT_OAUTH_CLIENT_SECRET
          ? { clientId: e.MICROSOFT_OAUTH_CLIENT_ID, clientSecret: e.MICROSOFT_OAUTH_CLIENT_SECRET, tenant: e.MICROSOFT_OAUTH_TENANT, loginBase: e.MICROSOFT_LOGIN_BASE.replace(/\/+$/, '') }
          : null,
    },
    unsafeDevMailboxInProduction: e.PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION,
    ai: {
      server: e.PARLEY_AI_BASE_URL ? { baseUrl: e.PARLEY_AI_BASE_URL.replace(/\/+$/, ''), model: e.PARLEY_AI_MODEL, apiKey: e.PARLEY_AI_API_KEY || null } : null,
      model: e.PARLEY_AI_MODEL,
      monthlyTokenCap: e.PARLEY_AI_MONTHLY_TOKEN_CAP,
      timeoutMs: e.PARLEY_AI_TIMEOUT_MS,
    },
    secretKey: e.PARLEY_SECRET_KEY
      ? Buffer.from(e.PARLEY_SECRET_KEY, /^[0-9a-f]{64}$/i.test(e.PARLEY_SECRET_KEY) ? 'hex' : 'base64')
      : Buffer.from(crypto.hkdfSync('sha256', e.SESSION_SECRET ?? loadOrCreateSecret(dataDir), 'parley', 'integration-tokens', 32)),
    backup: { schedule: e.PARLEY_BACKUP_SCHEDULE ?? null, dir: path.resolve(e.PARLEY_BACKUP_DIR ?? path.join(dataDir, 'backups')), keep: e.PARLEY_BACKUP_KEEP },
    integrations: integrationsConfig(e),
  };
}

function integrationsConfig(e: z.infer<typeof EnvSchema>): Config['integrations'] {
  const trim = (u: string) => u.replace(/\/+$/, '');
  return {
    shopify: e.SHOPIFY_CLIENT_ID && e.SHOPIFY_CLIENT_SECRET ? { clientId: e.SHOPIFY_CLIENT_ID, clientSecret: e.SHOPIFY_CLIENT_SECRET, apiBase: e.SHOPIFY_API_BASE ? trim(e.SHOPIFY_API_BASE) : null } : null,
    github: e.GITHUB_CLIENT_ID && e.GITHUB_CLIENT_SECRET ? { clientId: e.GITHUB_CLIENT_ID, clientSecret: e.GITHUB_CLIENT_SECRET, oauthBase: trim(e.GITHUB_OAUTH_BASE), apiBase: trim(e.GITHUB_API_BASE) } : null,
    asana: e.ASANA_CLIENT_ID && e.ASANA_CLIENT_SECRET ? { clientId: e.ASANA_CLIENT_ID, clientSecret: e.ASANA_CLIENT_SECRET, oauthBase: trim(e.ASANA_OAUTH_BASE), apiBase: trim(e.ASANA_API_BASE) } : null,
    clickup: e.CLICKUP_CLIENT_ID && e.CLICKUP_CLIENT_SECRET ? { clientId: e.CLICKUP_CLIENT_ID, clientSecret: e.CLICKUP_CLIENT_SECRET, oauthBase: trim(e.CLICKUP_OAUTH_BASE), apiBase: trim(e.CLICKUP_API_BASE) } : null,
    bigcommerce: { apiBase: trim(e.BIGCOMMERCE_API_BASE) },
    hubspot: e.HUBSPOT_CLIENT_ID && e.HUBSPOT_CLIENT_SECRET ? { clientId: e.HUBSPOT_CLIENT_ID, clientSecret: e.HUBSPOT_CLIENT_SECRET, oauthBase: trim(e.HUBSPOT_OAUTH_BASE), apiBase: trim(e.HUBSPOT_API_BASE), appId: e.HUBSPOT_APP_ID ?? null, developerApiKey: e.HUBSPOT_DEVELOPER_API_KEY || null } : null,
    pipedrive: e.PIPEDRIVE_CLIENT_ID && e.PIPEDRIVE_CLIENT_SECRET ? { clientId: e.PIPEDRIVE_CLIENT_ID, clientSecret: e.PIPEDRIVE_CLIENT_SECRET, oauthBase: trim(e.PIPEDRIVE_OAUTH_BASE), apiBase: e.PIPEDRIVE_API_BASE ? trim(e.PIPEDRIVE_API_BASE) : null } : null,
  };
}

function loadOrCreateSecret(dataDir: string) {
  const file = path.join(dataDir, 'session-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = crypto.randomBytes(32).toString('hex');
    fs.writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

export function getConfig(): Config {
  return singleton('config', () => parseConfig());
}

/** For entry points: the configuration, or every problem printed on its own line and exit 1. */
export function getConfigOrExit(): Config {
  try {
    return getConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

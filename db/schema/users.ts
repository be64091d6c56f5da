import { sql } from 'drizzle-orm';
import {
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

export const roles = pgTable(
  'roles',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    /** owner, admin and agent are the defaults every account starts with; custom roles have none. */
    kind: text('kind').$type<'owner' | 'admin' | 'agent'>(),
    permissions: text('permissions').array().notNull().default(sql`'{}'::text[]`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('roles_account_name_key').on(t.accountId, sql`lower(${t.name})`),
    uniqueIndex('roles_account_kind_key').on(t.accountId, t.kind),
  ],
);

export type NotificationPreferences = {
  emailOnAssignment: boolean;
  emailOnMention: boolean;
  emailOnNewConversation: boolean;
  /** Added by ADR 034; rows written before it lack them and read as on. */
  emailOnCustomerMessage?: boolean;
  emailOnSla?: boolean;
  browserPush: boolean;
};

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    roleId: integer('role_id')
      .notNull()
      .references(() => roles.id),
    email: text('email').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull().default(''),
    passwordHash: text('password_hash'),
    /** pending: invited or signed up but not yet verified; active: can sign in. */
    status: text('status').$type<'pending' | 'active'>().notNull().default('pending'),
    hasAccess: boolean('has_access').notNull().default(true),
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    dateFormat: text('date_format').notNull().default('DD-MM-YYYY'),
    timeFormat: text('time_format').$type<'12' | '24'>().notNull().default('12'),
    timezone: text('timezone').notNull().default('UTC'),
    avatar: bytea('avatar'),
    avatarType: text('avatar_type'),
    avatarColor: text('avatar_color').notNull().default('#4f46e5'),
    notificationPreferences: jsonb('notification_preferences')
      .$type<NotificationPreferences>()
      .notNull()
      .default({ emailOnAssignment: true, emailOnMention: true, emailOnNewConversation: false, browserPush: false }),
    invitedById: integer('invited_by_id'),
    invitedAt: timestamp('invited_at', { withTimezone: true }),
    lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true }),
    /** Two-factor sign-in (ADR 148): null while off; 'totp' (authenticator app) or 'email' (a code mailed at sign-in). */
    twoFactorMethod: text('two_factor_method').$type<'totp' | 'email'>(),
    /** The authenticator secret, sealed with the secret box; set at setup, used only once twoFactorMethod is 'totp'. */
    totpSecret: text('totp_secret'),
    /** The last 30-second step whose code was accepted: a code is refused once used, within its window too. */
    totpLastStep: integer('totp_last_step'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_account_email_key').on(t.accountId, sql`lower(${t.email})`),
    index('users_email_idx').on(sql`lower(${t.email})`),
    index('users_role_idx').on(t.roleId),
  ],
);

export const teams = pgTable(
  'teams',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('teams_account_name_key').on(t.accountId, sql`lower(${t.name})`)],
);

export const teamMembers = pgTable(
  'team_members',
  {
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] }), index('team_members_user_idx').on(t.userId)],
);

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    remember: boolean('remember').notNull().default(false),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    userAgent: text('user_agent'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Last request or keep-alive ping: the account's idle sign-out is judged from it (ADR 148). */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * Null for a full session. After the password only: 'two_factor' waits for the second step's code,
     * 'two_factor_setup' for the user to set two-factor up (the account requires it). Such a session opens no page of the app.
     */
    pendingStep: text('pending_step').$type<'two_factor' | 'two_factor_setup'>(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

/** Two-factor recovery codes: ten at a time, shown once, stored as hashes; each works once. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('recovery_codes_user_idx').on(t.userId)],
);

/** One-time codes and links: sign-up email codes, password resets, invitations. Only hashes are stored. */
export const verificationTokens = pgTable(
  'verification_tokens',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose').$type<'email_verification' | 'password_reset' | 'invitation' | 'email_change' | 'signin_code'>().notNull(),
    /** email_change only: the address the user asked for; it replaces the old one when the link is followed. */
    newEmail: text('new_email'),
    tokenHash: text('token_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('verification_tokens_user_idx').on(t.userId, t.purpose), uniqueIndex('verification_tokens_hash_key').on(t.tokenHash)],
);

CREATE TABLE "integration_order_imports" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"provider" text NOT NULL,
	"external_account" text DEFAULT '' NOT NULL,
	"since" timestamp with time zone,
	"status" text DEFAULT 'queued' NOT NULL,
	"pages" integer DEFAULT 0 NOT NULL,
	"seen" integer DEFAULT 0 NOT NULL,
	"recorded" integer DEFAULT 0 NOT NULL,
	"existing" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"message" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "text_design" text;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD COLUMN "seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "form_responses" ADD COLUMN "pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "conversion_goals" ADD COLUMN "kind" text DEFAULT 'event' NOT NULL;--> statement-breakpoint
ALTER TABLE "conversion_goals" ADD COLUMN "url_op" text;--> statement-breakpoint
ALTER TABLE "conversion_goals" ADD COLUMN "url_value" text;--> statement-breakpoint
ALTER TABLE "integration_order_imports" ADD CONSTRAINT "integration_order_imports_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_order_imports" ADD CONSTRAINT "integration_order_imports_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "integration_order_imports_account_idx" ON "integration_order_imports" USING btree ("account_id","provider","id");--> statement-breakpoint
CREATE INDEX "push_subscriptions_account_visitor_idx" ON "push_subscriptions" USING btree ("account_id","visitor_id");--> statement-breakpoint
-- Hand-written (ADR 112): rate-limit windows are counters, not records. Unlogged, an upsert writes no WAL and waits for no flush; a crash (not a clean restart) empties the table, which forgets the open windows.
ALTER TABLE "rate_limits" SET UNLOGGED;--> statement-breakpoint
-- ADR 114: web push becomes a plan flag, campaigns/webPush. Push was gated by campaigns/enabled before, which Trial,
-- Growth and Enterprise have; the catalogue now grants webPush to exactly those, so no account loses push. Operators'
-- own edits to other flags stay as they are (hand-written: drizzle cannot express a data update).
UPDATE "plans" SET "features" = jsonb_set("features", '{campaigns}', coalesce("features"->'campaigns', '{}'::jsonb) || '{"webPush": true}'::jsonb) WHERE "key" IN ('trial', 'growth', 'enterprise');

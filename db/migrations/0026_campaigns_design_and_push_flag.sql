ALTER TABLE "campaigns" ADD COLUMN "text_design" text;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD COLUMN "seen_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "push_subscriptions_account_visitor_idx" ON "push_subscriptions" USING btree ("account_id","visitor_id");--> statement-breakpoint
-- ADR 114: web push becomes a plan flag, campaigns/webPush. Push was gated by campaigns/enabled before, which Trial,
-- Growth and Enterprise have; the catalogue now grants webPush to exactly those, so no account loses push. Operators'
-- own edits to other flags stay as they are (hand-written: drizzle cannot express a data update).
UPDATE "plans" SET "features" = jsonb_set("features", '{campaigns}', coalesce("features"->'campaigns', '{}'::jsonb) || '{"webPush": true}'::jsonb) WHERE "key" IN ('trial', 'growth', 'enterprise');

CREATE TABLE "automation_event_verdicts" (
	"event_id" bigint PRIMARY KEY NOT NULL,
	"id" bigint DEFAULT nextval('automation_run_log_id_seq') NOT NULL,
	"account_id" integer NOT NULL,
	"event_type" text NOT NULL,
	"verdicts" jsonb NOT NULL,
	"conversation_id" integer,
	"contact_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_segments" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"action_operator" text DEFAULT 'AND' NOT NULL,
	"actions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"property_operator" text DEFAULT 'AND' NOT NULL,
	"properties" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_subscriptions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"inbox_id" integer,
	"visitor_id" text,
	"contact_id" integer,
	"endpoint" text NOT NULL,
	"p256dh" text NOT NULL,
	"auth" text NOT NULL,
	"page_url" text,
	"referrer" text,
	"referrer_type" text DEFAULT 'direct' NOT NULL,
	"browser" text,
	"os" text,
	"platform" text DEFAULT 'desktop' NOT NULL,
	"location" text,
	"timezone" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_vapid_keys" (
	"account_id" integer PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conversion_goals" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"event_name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"attribution_days" integer DEFAULT 30 NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "goal_conversions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"goal_id" integer NOT NULL,
	"contact_id" integer NOT NULL,
	"conversation_id" integer,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sale_trackers" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"attribution_days" integer DEFAULT 30 NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sales" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"source" text NOT NULL,
	"external_id" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"contact_id" integer,
	"sale_tracker_id" integer,
	"conversation_id" integer,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "campaign_recipients" ADD COLUMN "delivered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "push_segment_id" integer;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "push" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "delivered_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "csat_surveys" ADD COLUMN "logo_attachment_id" integer;--> statement-breakpoint
ALTER TABLE "survey_email_lists" ADD COLUMN "status" text DEFAULT 'ready' NOT NULL;--> statement-breakpoint
ALTER TABLE "survey_email_lists" ADD COLUMN "storage_key" text;--> statement-breakpoint
ALTER TABLE "automation_event_verdicts" ADD CONSTRAINT "automation_event_verdicts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_segments" ADD CONSTRAINT "push_segments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_vapid_keys" ADD CONSTRAINT "push_vapid_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversion_goals" ADD CONSTRAINT "conversion_goals_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goal_conversions" ADD CONSTRAINT "goal_conversions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goal_conversions" ADD CONSTRAINT "goal_conversions_goal_id_conversion_goals_id_fk" FOREIGN KEY ("goal_id") REFERENCES "public"."conversion_goals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goal_conversions" ADD CONSTRAINT "goal_conversions_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sale_trackers" ADD CONSTRAINT "sale_trackers_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_sale_tracker_id_sale_trackers_id_fk" FOREIGN KEY ("sale_tracker_id") REFERENCES "public"."sale_trackers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "automation_event_verdicts_account_idx" ON "automation_event_verdicts" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "automation_event_verdicts_conversation_idx" ON "automation_event_verdicts" USING btree ("account_id","conversation_id","id") WHERE conversation_id is not null;--> statement-breakpoint
CREATE INDEX "push_segments_account_idx" ON "push_segments" USING btree ("account_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "push_subscriptions_account_endpoint_key" ON "push_subscriptions" USING btree ("account_id","endpoint");--> statement-breakpoint
CREATE UNIQUE INDEX "conversion_goals_account_name_key" ON "conversion_goals" USING btree ("account_id","name");--> statement-breakpoint
CREATE INDEX "conversion_goals_event_idx" ON "conversion_goals" USING btree ("account_id","event_name");--> statement-breakpoint
CREATE UNIQUE INDEX "goal_conversions_goal_contact_key" ON "goal_conversions" USING btree ("goal_id","contact_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sale_trackers_account_name_key" ON "sale_trackers" USING btree ("account_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "sales_account_source_external_key" ON "sales" USING btree ("account_id","source","external_id");--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_push_segment_id_push_segments_id_fk" FOREIGN KEY ("push_segment_id") REFERENCES "public"."push_segments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "csat_surveys" ADD CONSTRAINT "csat_surveys_logo_attachment_id_attachments_id_fk" FOREIGN KEY ("logo_attachment_id") REFERENCES "public"."attachments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- ADR 101: AI help becomes a plan flag, conversation/aiHelp. The plans that had AI help before (every plan did)
-- and that the catalogue now grants it keep it: Trial, Growth and Enterprise. Starter and Free lose the AI calls
-- and keep the full-text suggestions. Operators' own edits to other flags stay as they are (hand-written: drizzle cannot express a data update).
UPDATE "plans" SET "features" = jsonb_set("features", '{conversation}', coalesce("features"->'conversation', '{}'::jsonb) || '{"aiHelp": true}'::jsonb) WHERE "key" IN ('trial', 'growth', 'enterprise');

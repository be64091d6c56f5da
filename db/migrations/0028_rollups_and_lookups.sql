CREATE TABLE "analytics_counters_daily" (
	"account_id" integer NOT NULL,
	"metric" text NOT NULL,
	"dim" text NOT NULL,
	"key" text NOT NULL,
	"day" date NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL,
	"total" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_counters_daily_account_id_metric_dim_key_day_pk" PRIMARY KEY("account_id","metric","dim","key","day")
);
--> statement-breakpoint
CREATE TABLE "analytics_durations_daily" (
	"account_id" integer NOT NULL,
	"metric" text NOT NULL,
	"dim" text NOT NULL,
	"key" text NOT NULL,
	"day" date NOT NULL,
	"bin" smallint NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_durations_daily_account_id_metric_dim_key_day_bin_pk" PRIMARY KEY("account_id","metric","dim","key","day","bin")
);
--> statement-breakpoint
CREATE TABLE "analytics_rollups" (
	"account_id" integer PRIMARY KEY NOT NULL,
	"time_zone" text NOT NULL,
	"through_day" date,
	"through_event_id" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "conversations_list_idx";--> statement-breakpoint
DROP INDEX "conversations_all_idx";--> statement-breakpoint
DROP INDEX "conversations_assignee_idx";--> statement-breakpoint
DROP INDEX "conversations_inbox_idx";--> statement-breakpoint
ALTER TABLE "analytics_counters_daily" ADD CONSTRAINT "analytics_counters_daily_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_durations_daily" ADD CONSTRAINT "analytics_durations_daily_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_rollups" ADD CONSTRAINT "analytics_rollups_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "domain_events_conversation_created_idx" ON "domain_events" USING btree ("account_id","subject_id","id") WHERE subject_type = 'conversation' and type = 'conversation_created';--> statement-breakpoint
CREATE INDEX "domain_events_conversation_assigned_idx" ON "domain_events" USING btree ("account_id","subject_id","id") WHERE subject_type = 'conversation' and type = 'conversation_assigned';--> statement-breakpoint
CREATE INDEX "domain_events_conversation_replies_idx" ON "domain_events" USING btree ("account_id","subject_id","id") WHERE subject_type = 'conversation' and type = 'message_created' and actor_type = 'user' and (payload ->> 'kind') = 'outgoing';--> statement-breakpoint
CREATE INDEX "domain_events_conversation_tags_idx" ON "domain_events" USING btree ("account_id","subject_id","id") WHERE subject_type = 'conversation' and type = 'conversation_updated' and (payload -> 'changed') ? 'tags';--> statement-breakpoint
CREATE INDEX "conversations_list_idx" ON "conversations" USING btree ("account_id","status","last_message_at","id") WHERE "conversations"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "conversations_all_idx" ON "conversations" USING btree ("account_id","last_message_at","id") WHERE "conversations"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "conversations_assignee_idx" ON "conversations" USING btree ("account_id","assignee_id","status","last_message_at","id") WHERE "conversations"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "conversations_inbox_idx" ON "conversations" USING btree ("account_id","inbox_id","status","last_message_at","id") WHERE "conversations"."deleted_at" is null;
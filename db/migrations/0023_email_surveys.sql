CREATE TABLE "csat_ratings" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"csat_survey_id" integer,
	"kind" text NOT NULL,
	"conversation_id" integer NOT NULL,
	"inbox_id" integer,
	"contact_id" integer,
	"assignee_id" integer,
	"team_id" integer,
	"single" boolean DEFAULT true NOT NULL,
	"token" text NOT NULL,
	"email" text,
	"rating" integer,
	"comment" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"rated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "csat_surveys" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"kind" text NOT NULL,
	"inbox_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"subject" text NOT NULL,
	"heading" text DEFAULT '' NOT NULL,
	"sub_heading" text DEFAULT '' NOT NULL,
	"footer" text DEFAULT '' NOT NULL,
	"ratings_type" text DEFAULT 'star' NOT NULL,
	"comment_enabled" boolean DEFAULT false NOT NULL,
	"comment_enabled_below" integer DEFAULT 3 NOT NULL,
	"comment_title" text DEFAULT 'Can you tell us more about your experience?' NOT NULL,
	"finish_text" text DEFAULT 'Thank you for your valuable feedback' NOT NULL,
	"allow_multiple_feedback" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_suppressions" (
	"account_id" integer NOT NULL,
	"email" text NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_suppressions_account_id_email_pk" PRIMARY KEY("account_id","email")
);
--> statement-breakpoint
CREATE TABLE "survey_email_list_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"list_id" integer NOT NULL,
	"email" text NOT NULL,
	"name" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "survey_email_lists" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"survey_id" integer NOT NULL,
	"name" text NOT NULL,
	"file_name" text NOT NULL,
	"success_count" integer DEFAULT 0 NOT NULL,
	"failed_count" integer DEFAULT 0 NOT NULL,
	"created_by_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "survey_email_recipients" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"survey_id" integer NOT NULL,
	"send_id" integer NOT NULL,
	"email" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"contact_id" integer,
	"token" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"claimed_at" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"opened_at" timestamp with time zone,
	"responded_at" timestamp with time zone,
	"message_id" text,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "survey_email_schedules" (
	"survey_id" integer PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"send_later" boolean DEFAULT false NOT NULL,
	"send_at" text,
	"timezone" text,
	"recurring" boolean DEFAULT false NOT NULL,
	"interval_days" integer,
	"rrule" text,
	"generation" integer DEFAULT 0 NOT NULL,
	"next_run_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "survey_email_sends" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"survey_id" integer NOT NULL,
	"occurrence_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'resolving' NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "csat_ratings" ADD CONSTRAINT "csat_ratings_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "csat_ratings" ADD CONSTRAINT "csat_ratings_csat_survey_id_csat_surveys_id_fk" FOREIGN KEY ("csat_survey_id") REFERENCES "public"."csat_surveys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "csat_ratings" ADD CONSTRAINT "csat_ratings_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "csat_ratings" ADD CONSTRAINT "csat_ratings_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "csat_ratings" ADD CONSTRAINT "csat_ratings_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "csat_ratings" ADD CONSTRAINT "csat_ratings_assignee_id_users_id_fk" FOREIGN KEY ("assignee_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "csat_surveys" ADD CONSTRAINT "csat_surveys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_suppressions" ADD CONSTRAINT "email_suppressions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_email_list_entries" ADD CONSTRAINT "survey_email_list_entries_list_id_survey_email_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."survey_email_lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_email_lists" ADD CONSTRAINT "survey_email_lists_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_email_lists" ADD CONSTRAINT "survey_email_lists_survey_id_surveys_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."surveys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_email_lists" ADD CONSTRAINT "survey_email_lists_created_by_id_users_id_fk" FOREIGN KEY ("created_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_email_recipients" ADD CONSTRAINT "survey_email_recipients_survey_id_surveys_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."surveys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_email_recipients" ADD CONSTRAINT "survey_email_recipients_send_id_survey_email_sends_id_fk" FOREIGN KEY ("send_id") REFERENCES "public"."survey_email_sends"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_email_recipients" ADD CONSTRAINT "survey_email_recipients_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_email_schedules" ADD CONSTRAINT "survey_email_schedules_survey_id_surveys_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."surveys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_email_schedules" ADD CONSTRAINT "survey_email_schedules_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_email_sends" ADD CONSTRAINT "survey_email_sends_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_email_sends" ADD CONSTRAINT "survey_email_sends_survey_id_surveys_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."surveys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "csat_ratings_token_key" ON "csat_ratings" USING btree ("token");--> statement-breakpoint
CREATE UNIQUE INDEX "csat_ratings_single_key" ON "csat_ratings" USING btree ("conversation_id") WHERE "csat_ratings"."single";--> statement-breakpoint
CREATE INDEX "csat_ratings_account_rated_idx" ON "csat_ratings" USING btree ("account_id","rated_at");--> statement-breakpoint
CREATE INDEX "csat_ratings_conversation_idx" ON "csat_ratings" USING btree ("account_id","conversation_id");--> statement-breakpoint
CREATE INDEX "csat_surveys_account_idx" ON "csat_surveys" USING btree ("account_id","kind");--> statement-breakpoint
CREATE UNIQUE INDEX "survey_email_list_entries_key" ON "survey_email_list_entries" USING btree ("list_id","email");--> statement-breakpoint
CREATE INDEX "survey_email_lists_survey_idx" ON "survey_email_lists" USING btree ("account_id","survey_id");--> statement-breakpoint
CREATE UNIQUE INDEX "survey_email_recipients_send_email_key" ON "survey_email_recipients" USING btree ("send_id","email");--> statement-breakpoint
CREATE UNIQUE INDEX "survey_email_recipients_token_key" ON "survey_email_recipients" USING btree ("token");--> statement-breakpoint
CREATE INDEX "survey_email_recipients_survey_idx" ON "survey_email_recipients" USING btree ("account_id","survey_id","status");--> statement-breakpoint
CREATE INDEX "survey_email_recipients_waiting_idx" ON "survey_email_recipients" USING btree ("send_id","id") WHERE "survey_email_recipients"."status" in ('queued', 'sending');--> statement-breakpoint
CREATE INDEX "survey_email_recipients_message_idx" ON "survey_email_recipients" USING btree ("message_id") WHERE "survey_email_recipients"."message_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "survey_email_sends_occurrence_key" ON "survey_email_sends" USING btree ("survey_id","occurrence_at");
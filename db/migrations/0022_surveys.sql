CREATE TABLE "survey_folders" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"is_public" boolean DEFAULT true NOT NULL,
	"user_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"created_by_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "survey_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"survey_id" integer NOT NULL,
	"version" integer NOT NULL,
	"name" text NOT NULL,
	"channel" text NOT NULL,
	"sub_type" text NOT NULL,
	"logo_attachment_id" integer,
	"design" jsonb NOT NULL,
	"messages" jsonb NOT NULL,
	"questions" jsonb NOT NULL,
	"target" jsonb NOT NULL,
	"settings" jsonb NOT NULL,
	"published_by_id" integer,
	"published_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "surveys" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"unique_id" text NOT NULL,
	"name" text NOT NULL,
	"folder_id" integer NOT NULL,
	"channel" text NOT NULL,
	"sub_type" text NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"language" text DEFAULT 'EN' NOT NULL,
	"allow_partial_submission" boolean DEFAULT true NOT NULL,
	"response_limit" integer,
	"cut_off_date" date,
	"logo_attachment_id" integer,
	"design" jsonb NOT NULL,
	"messages" jsonb NOT NULL,
	"questions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"target" jsonb NOT NULL,
	"published_version_id" integer,
	"published_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"created_by_id" integer,
	"updated_by_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "survey_responses" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"survey_id" integer NOT NULL,
	"survey_version_id" integer NOT NULL,
	"channel" text NOT NULL,
	"response_key" text NOT NULL,
	"respondent_key" text NOT NULL,
	"contact_id" integer,
	"widget_visitor_id" text,
	"conversation_id" integer,
	"page_url" text,
	"answers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"draft" boolean DEFAULT false NOT NULL,
	"complete" boolean DEFAULT false NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "survey_result_deltas" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"survey_id" integer NOT NULL,
	"question_id" text NOT NULL,
	"value_key" text NOT NULL,
	"day" date NOT NULL,
	"channel" text NOT NULL,
	"n" integer NOT NULL,
	"folded" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "survey_folders" ADD CONSTRAINT "survey_folders_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_folders" ADD CONSTRAINT "survey_folders_created_by_id_users_id_fk" FOREIGN KEY ("created_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_versions" ADD CONSTRAINT "survey_versions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_versions" ADD CONSTRAINT "survey_versions_survey_id_surveys_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."surveys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_versions" ADD CONSTRAINT "survey_versions_logo_attachment_id_attachments_id_fk" FOREIGN KEY ("logo_attachment_id") REFERENCES "public"."attachments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_versions" ADD CONSTRAINT "survey_versions_published_by_id_users_id_fk" FOREIGN KEY ("published_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "surveys" ADD CONSTRAINT "surveys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "surveys" ADD CONSTRAINT "surveys_folder_id_survey_folders_id_fk" FOREIGN KEY ("folder_id") REFERENCES "public"."survey_folders"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "surveys" ADD CONSTRAINT "surveys_logo_attachment_id_attachments_id_fk" FOREIGN KEY ("logo_attachment_id") REFERENCES "public"."attachments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "surveys" ADD CONSTRAINT "surveys_created_by_id_users_id_fk" FOREIGN KEY ("created_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "surveys" ADD CONSTRAINT "surveys_updated_by_id_users_id_fk" FOREIGN KEY ("updated_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_survey_id_surveys_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."surveys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_survey_version_id_survey_versions_id_fk" FOREIGN KEY ("survey_version_id") REFERENCES "public"."survey_versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_widget_visitor_id_widget_visitors_id_fk" FOREIGN KEY ("widget_visitor_id") REFERENCES "public"."widget_visitors"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_result_deltas" ADD CONSTRAINT "survey_result_deltas_survey_id_surveys_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."surveys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "survey_folders_account_name_key" ON "survey_folders" USING btree ("account_id",lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "survey_folders_account_default_key" ON "survey_folders" USING btree ("account_id") WHERE "survey_folders"."is_default";--> statement-breakpoint
CREATE UNIQUE INDEX "survey_versions_survey_version_key" ON "survey_versions" USING btree ("survey_id","version");--> statement-breakpoint
CREATE INDEX "survey_versions_account_idx" ON "survey_versions" USING btree ("account_id","survey_id");--> statement-breakpoint
CREATE UNIQUE INDEX "surveys_unique_id_key" ON "surveys" USING btree ("unique_id");--> statement-breakpoint
CREATE INDEX "surveys_account_updated_idx" ON "surveys" USING btree ("account_id","updated_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "surveys_account_folder_idx" ON "surveys" USING btree ("account_id","folder_id");--> statement-breakpoint
CREATE UNIQUE INDEX "survey_responses_key" ON "survey_responses" USING btree ("survey_id","response_key");--> statement-breakpoint
CREATE INDEX "survey_responses_respondent_idx" ON "survey_responses" USING btree ("survey_id","respondent_key");--> statement-breakpoint
CREATE INDEX "survey_responses_survey_started_idx" ON "survey_responses" USING btree ("survey_id","started_at","id");--> statement-breakpoint
CREATE INDEX "survey_responses_account_idx" ON "survey_responses" USING btree ("account_id","survey_id");--> statement-breakpoint
CREATE INDEX "survey_responses_contact_idx" ON "survey_responses" USING btree ("account_id","contact_id") WHERE "survey_responses"."contact_id" is not null;--> statement-breakpoint
CREATE INDEX "survey_result_deltas_survey_idx" ON "survey_result_deltas" USING btree ("survey_id","day");--> statement-breakpoint
CREATE UNIQUE INDEX "survey_result_deltas_folded_key" ON "survey_result_deltas" USING btree ("survey_id","question_id","value_key","day","channel") WHERE "survey_result_deltas"."folded";--> statement-breakpoint
CREATE INDEX "survey_result_deltas_unfolded_idx" ON "survey_result_deltas" USING btree ("survey_id") WHERE not "survey_result_deltas"."folded";
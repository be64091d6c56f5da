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
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_survey_id_surveys_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."surveys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_survey_version_id_survey_versions_id_fk" FOREIGN KEY ("survey_version_id") REFERENCES "public"."survey_versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_widget_visitor_id_widget_visitors_id_fk" FOREIGN KEY ("widget_visitor_id") REFERENCES "public"."widget_visitors"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_responses" ADD CONSTRAINT "survey_responses_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "survey_result_deltas" ADD CONSTRAINT "survey_result_deltas_survey_id_surveys_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."surveys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "survey_responses_key" ON "survey_responses" USING btree ("survey_id","response_key");--> statement-breakpoint
CREATE INDEX "survey_responses_respondent_idx" ON "survey_responses" USING btree ("survey_id","respondent_key");--> statement-breakpoint
CREATE INDEX "survey_responses_survey_started_idx" ON "survey_responses" USING btree ("survey_id","started_at","id");--> statement-breakpoint
CREATE INDEX "survey_responses_account_idx" ON "survey_responses" USING btree ("account_id","survey_id");--> statement-breakpoint
CREATE INDEX "survey_responses_contact_idx" ON "survey_responses" USING btree ("account_id","contact_id") WHERE "survey_responses"."contact_id" is not null;--> statement-breakpoint
CREATE INDEX "survey_result_deltas_survey_idx" ON "survey_result_deltas" USING btree ("survey_id","day");--> statement-breakpoint
CREATE UNIQUE INDEX "survey_result_deltas_folded_key" ON "survey_result_deltas" USING btree ("survey_id","question_id","value_key","day","channel") WHERE "survey_result_deltas"."folded";--> statement-breakpoint
CREATE INDEX "survey_result_deltas_unfolded_idx" ON "survey_result_deltas" USING btree ("survey_id") WHERE not "survey_result_deltas"."folded";
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
ALTER TABLE "automation_event_verdicts" ADD CONSTRAINT "automation_event_verdicts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "automation_event_verdicts_account_idx" ON "automation_event_verdicts" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "automation_event_verdicts_conversation_idx" ON "automation_event_verdicts" USING btree ("account_id","conversation_id","id") WHERE conversation_id is not null;
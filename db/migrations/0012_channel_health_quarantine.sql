CREATE TABLE "channel_health" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"inbox_id" integer NOT NULL,
	"part" text NOT NULL,
	"last_success_at" timestamp with time zone,
	"last_error_at" timestamp with time zone,
	"last_error" text,
	"failing_since" timestamp with time zone,
	"offered_certificate" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quarantined_emails" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"inbox_id" integer NOT NULL,
	"via" text NOT NULL,
	"reason" text NOT NULL,
	"raw" "bytea" NOT NULL,
	"recipients" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"envelope_from" text,
	"attempts" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_attempt_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "channel_health" ADD CONSTRAINT "channel_health_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_health" ADD CONSTRAINT "channel_health_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quarantined_emails" ADD CONSTRAINT "quarantined_emails_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quarantined_emails" ADD CONSTRAINT "quarantined_emails_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "channel_health_inbox_part_idx" ON "channel_health" USING btree ("inbox_id","part");--> statement-breakpoint
CREATE INDEX "channel_health_account_idx" ON "channel_health" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "quarantined_emails_inbox_idx" ON "quarantined_emails" USING btree ("account_id","inbox_id");
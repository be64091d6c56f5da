ALTER TABLE "csat_surveys" ADD COLUMN "logo_attachment_id" integer;--> statement-breakpoint
ALTER TABLE "survey_email_lists" ADD COLUMN "status" text DEFAULT 'ready' NOT NULL;--> statement-breakpoint
ALTER TABLE "survey_email_lists" ADD COLUMN "storage_key" text;--> statement-breakpoint
ALTER TABLE "csat_surveys" ADD CONSTRAINT "csat_surveys_logo_attachment_id_attachments_id_fk" FOREIGN KEY ("logo_attachment_id") REFERENCES "public"."attachments"("id") ON DELETE set null ON UPDATE no action;
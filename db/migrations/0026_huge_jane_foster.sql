ALTER TABLE "conversion_goals" ADD COLUMN "kind" text DEFAULT 'event' NOT NULL;--> statement-breakpoint
ALTER TABLE "conversion_goals" ADD COLUMN "url_op" text;--> statement-breakpoint
ALTER TABLE "conversion_goals" ADD COLUMN "url_value" text;
ALTER TABLE "calendar_connections" ADD COLUMN "server_url" text;--> statement-breakpoint
ALTER TABLE "calendar_connections" ADD COLUMN "username" text;--> statement-breakpoint
ALTER TABLE "meeting_bookings" ADD COLUMN "sequence" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "meeting_bookings" ADD COLUMN "rescheduled_at" timestamp with time zone;
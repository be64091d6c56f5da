ALTER TABLE "campaign_recipients" ADD COLUMN "conversation_id" integer;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "chat" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "complained_count" integer DEFAULT 0 NOT NULL;
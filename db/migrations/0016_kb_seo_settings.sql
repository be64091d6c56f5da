ALTER TABLE "knowledge_bases" ADD COLUMN "ga_key" text;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "anonymized_ip" boolean DEFAULT true NOT NULL;
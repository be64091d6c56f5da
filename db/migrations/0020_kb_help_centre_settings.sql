ALTER TABLE "knowledge_bases" ADD COLUMN "logo_token" text;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "brand_color" text;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "header_text_color" text;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "header_links" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "article_feedback" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "show_last_updated" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "show_view_count" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "related_articles" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "article_order" text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "versions_kept" integer;--> statement-breakpoint
CREATE INDEX "kb_article_versions_recent_idx" ON "kb_article_versions" USING btree ("account_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);
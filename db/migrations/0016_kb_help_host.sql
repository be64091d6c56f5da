ALTER TABLE "knowledge_bases" ADD COLUMN "ga_key" text;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "anonymized_ip" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "custom_css" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "custom_js" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "knowledge_bases_slug_idx" ON "knowledge_bases" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "knowledge_bases_cname_idx" ON "knowledge_bases" USING btree (lower("cname"));
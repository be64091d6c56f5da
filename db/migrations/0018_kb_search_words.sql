CREATE TABLE "kb_search_words" (
	"account_id" integer NOT NULL,
	"knowledge_base_id" integer NOT NULL,
	"word" text NOT NULL
);
--> statement-breakpoint
DROP INDEX "kb_articles_published_title_trgm_idx";--> statement-breakpoint
DROP INDEX "kb_articles_published_text_trgm_idx";--> statement-breakpoint
ALTER TABLE "kb_search_words" ADD CONSTRAINT "kb_search_words_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_search_words" ADD CONSTRAINT "kb_search_words_knowledge_base_id_knowledge_bases_id_fk" FOREIGN KEY ("knowledge_base_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "kb_search_words_key" ON "kb_search_words" USING btree ("knowledge_base_id","word");--> statement-breakpoint
CREATE INDEX "kb_search_words_trgm_idx" ON "kb_search_words" USING gin ("word" gin_trgm_ops);--> statement-breakpoint
-- Hand-written: the words of the articles published before this migration.
INSERT INTO "kb_search_words" ("account_id", "knowledge_base_id", "word")
SELECT DISTINCT a.account_id, a.knowledge_base_id, m[1]
  FROM "kb_articles" a,
       regexp_matches(lower(coalesce(a.published_title, '') || ' ' || coalesce(a.published_text, '')), '([[:alpha:]]{3,30})', 'g') m
 WHERE a.status = 'published'
ON CONFLICT DO NOTHING;

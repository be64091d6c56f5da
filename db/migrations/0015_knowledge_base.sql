CREATE TABLE "kb_article_feedback" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"article_id" integer NOT NULL,
	"visitor_key" text NOT NULL,
	"helpful" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kb_article_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"article_id" integer NOT NULL,
	"number" integer NOT NULL,
	"title" text NOT NULL,
	"slug" text NOT NULL,
	"category_id" integer,
	"body_html" text NOT NULL,
	"body_text" text NOT NULL,
	"seo_title" text,
	"seo_description" text,
	"author_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kb_articles" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"knowledge_base_id" integer NOT NULL,
	"category_id" integer,
	"title" text NOT NULL,
	"slug" text NOT NULL,
	"body_html" text DEFAULT '' NOT NULL,
	"body_text" text DEFAULT '' NOT NULL,
	"seo_title" text,
	"seo_description" text,
	"status" text DEFAULT 'draft' NOT NULL,
	"trashed_at" timestamp with time zone,
	"position" integer DEFAULT 0 NOT NULL,
	"published_version_id" integer,
	"published_title" text,
	"published_slug" text,
	"published_html" text,
	"published_text" text,
	"published_at" timestamp with time zone,
	"search_config" "regconfig" DEFAULT 'simple'::regconfig NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector(search_config, coalesce(published_title, '')), 'A') || setweight(to_tsvector(search_config, coalesce(published_text, '')), 'B')) STORED,
	"helpful_count" integer DEFAULT 0 NOT NULL,
	"unhelpful_count" integer DEFAULT 0 NOT NULL,
	"view_count" integer DEFAULT 0 NOT NULL,
	"author_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kb_categories" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"knowledge_base_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"slug" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kb_searches" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"knowledge_base_id" integer NOT NULL,
	"query" text NOT NULL,
	"result_count" integer NOT NULL,
	"clicked_article_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_bases" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"detail" text DEFAULT '' NOT NULL,
	"slug" text NOT NULL,
	"help_name" text,
	"cname" text,
	"language" text DEFAULT 'en' NOT NULL,
	"docs_visible" boolean DEFAULT true NOT NULL,
	"seo_title" text,
	"seo_description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "kb_article_feedback" ADD CONSTRAINT "kb_article_feedback_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_article_feedback" ADD CONSTRAINT "kb_article_feedback_article_id_kb_articles_id_fk" FOREIGN KEY ("article_id") REFERENCES "public"."kb_articles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_article_versions" ADD CONSTRAINT "kb_article_versions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_article_versions" ADD CONSTRAINT "kb_article_versions_article_id_kb_articles_id_fk" FOREIGN KEY ("article_id") REFERENCES "public"."kb_articles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_article_versions" ADD CONSTRAINT "kb_article_versions_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_articles" ADD CONSTRAINT "kb_articles_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_articles" ADD CONSTRAINT "kb_articles_knowledge_base_id_knowledge_bases_id_fk" FOREIGN KEY ("knowledge_base_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_articles" ADD CONSTRAINT "kb_articles_category_id_kb_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "public"."kb_categories"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_articles" ADD CONSTRAINT "kb_articles_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_categories" ADD CONSTRAINT "kb_categories_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_categories" ADD CONSTRAINT "kb_categories_knowledge_base_id_knowledge_bases_id_fk" FOREIGN KEY ("knowledge_base_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_searches" ADD CONSTRAINT "kb_searches_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_searches" ADD CONSTRAINT "kb_searches_knowledge_base_id_knowledge_bases_id_fk" FOREIGN KEY ("knowledge_base_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD CONSTRAINT "knowledge_bases_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "kb_article_feedback_visitor_key" ON "kb_article_feedback" USING btree ("article_id","visitor_key");--> statement-breakpoint
CREATE UNIQUE INDEX "kb_article_versions_article_number_key" ON "kb_article_versions" USING btree ("article_id","number");--> statement-breakpoint
CREATE INDEX "kb_article_versions_account_idx" ON "kb_article_versions" USING btree ("account_id","article_id");--> statement-breakpoint
CREATE INDEX "kb_articles_kb_updated_idx" ON "kb_articles" USING btree ("account_id","knowledge_base_id","updated_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "kb_articles_kb_title_idx" ON "kb_articles" USING btree ("account_id","knowledge_base_id",lower("title"),"id");--> statement-breakpoint
CREATE INDEX "kb_articles_category_position_idx" ON "kb_articles" USING btree ("account_id","category_id","position","id");--> statement-breakpoint
CREATE INDEX "kb_articles_search_idx" ON "kb_articles" USING gin ("search");--> statement-breakpoint
CREATE INDEX "kb_articles_published_title_trgm_idx" ON "kb_articles" USING gin (lower(coalesce(published_title, '')) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "kb_articles_published_text_trgm_idx" ON "kb_articles" USING gin (lower(coalesce(published_text, '')) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "kb_categories_kb_position_idx" ON "kb_categories" USING btree ("account_id","knowledge_base_id","position","id");--> statement-breakpoint
CREATE INDEX "kb_searches_kb_created_idx" ON "kb_searches" USING btree ("account_id","knowledge_base_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "knowledge_bases_account_slug_key" ON "knowledge_bases" USING btree ("account_id","slug");
CREATE TABLE "kb_imports" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"knowledge_base_id" integer NOT NULL,
	"source" text DEFAULT 'zendesk' NOT NULL,
	"url" text NOT NULL,
	"locale" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"fetched" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"result" jsonb,
	"message" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
DROP INDEX "kb_articles_kb_updated_idx";--> statement-breakpoint
ALTER TABLE "kb_imports" ADD CONSTRAINT "kb_imports_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_imports" ADD CONSTRAINT "kb_imports_knowledge_base_id_knowledge_bases_id_fk" FOREIGN KEY ("knowledge_base_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_imports" ADD CONSTRAINT "kb_imports_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "kb_imports_kb_idx" ON "kb_imports" USING btree ("account_id","knowledge_base_id","id");--> statement-breakpoint
CREATE INDEX "kb_articles_kb_updated_idx" ON "kb_articles" USING btree ("account_id","knowledge_base_id","updated_at" DESC NULLS FIRST,"id");
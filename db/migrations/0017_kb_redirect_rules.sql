CREATE TABLE "kb_redirect_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"knowledge_base_id" integer NOT NULL,
	"source" text NOT NULL,
	"source_id" integer NOT NULL,
	"destination" text NOT NULL,
	"destination_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "kb_redirect_rules" ADD CONSTRAINT "kb_redirect_rules_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_redirect_rules" ADD CONSTRAINT "kb_redirect_rules_knowledge_base_id_knowledge_bases_id_fk" FOREIGN KEY ("knowledge_base_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "kb_redirect_rules_source_key" ON "kb_redirect_rules" USING btree ("account_id","knowledge_base_id","source_id");
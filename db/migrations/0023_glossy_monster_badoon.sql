CREATE TABLE "chatbot_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"bot_id" integer NOT NULL,
	"conversation_id" integer NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"waiting_step_id" text,
	"waiting_message_id" bigint,
	"last_answer" text,
	"end_reason" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "chatbots" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"inbox_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"conditions" jsonb NOT NULL,
	"steps" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "bot_id" integer;--> statement-breakpoint
ALTER TABLE "chatbot_runs" ADD CONSTRAINT "chatbot_runs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chatbot_runs" ADD CONSTRAINT "chatbot_runs_bot_id_chatbots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."chatbots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chatbot_runs" ADD CONSTRAINT "chatbot_runs_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chatbots" ADD CONSTRAINT "chatbots_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chatbots" ADD CONSTRAINT "chatbots_created_by_id_users_id_fk" FOREIGN KEY ("created_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "chatbot_runs_conversation_key" ON "chatbot_runs" USING btree ("conversation_id");--> statement-breakpoint
CREATE INDEX "chatbot_runs_bot_idx" ON "chatbot_runs" USING btree ("account_id","bot_id");--> statement-breakpoint
CREATE INDEX "chatbots_account_idx" ON "chatbots" USING btree ("account_id");--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_bot_id_chatbots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."chatbots"("id") ON DELETE set null ON UPDATE no action;
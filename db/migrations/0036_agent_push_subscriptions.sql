CREATE TABLE "agent_push_subscriptions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"endpoint" text NOT NULL,
	"p256dh" text NOT NULL,
	"auth" text NOT NULL,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_success_at" timestamp with time zone,
	"last_failure_at" timestamp with time zone,
	"last_failure" text
);
--> statement-breakpoint
ALTER TABLE "agent_push_subscriptions" ADD CONSTRAINT "agent_push_subscriptions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_push_subscriptions" ADD CONSTRAINT "agent_push_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_push_subscriptions_account_endpoint_key" ON "agent_push_subscriptions" USING btree ("account_id","endpoint");--> statement-breakpoint
CREATE INDEX "agent_push_subscriptions_user_idx" ON "agent_push_subscriptions" USING btree ("account_id","user_id");
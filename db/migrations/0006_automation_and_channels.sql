CREATE TABLE "widget_visitors" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"inbox_id" integer NOT NULL,
	"contact_id" integer,
	"external_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_presence" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"connections" integer DEFAULT 0 NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "automation_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"event" text NOT NULL,
	"source_type" text,
	"sources" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"conditions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"condition_operator" text DEFAULT 'and' NOT NULL,
	"filters" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"actions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"is_active" boolean DEFAULT false NOT NULL,
	"created_by_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "automation_run_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"event_id" bigint NOT NULL,
	"event_type" text NOT NULL,
	"rule_id" integer NOT NULL,
	"step" text NOT NULL,
	"action_index" smallint,
	"action_type" text,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"conversation_id" integer,
	"contact_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "routing_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"inbox_id" integer NOT NULL,
	"rule" text NOT NULL,
	"assign_limit" integer,
	"team_id" integer,
	"subrules" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"last_assigned_user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sla_policies" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"inbox_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"targets" jsonb NOT NULL,
	"is_escalate" boolean DEFAULT false NOT NULL,
	"escalate_to" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "sla_policy_id" integer;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "first_response_due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "resolve_due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "first_responded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "response_breached_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "resolve_breached_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "widget_visitors" ADD CONSTRAINT "widget_visitors_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widget_visitors" ADD CONSTRAINT "widget_visitors_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widget_visitors" ADD CONSTRAINT "widget_visitors_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_presence" ADD CONSTRAINT "agent_presence_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_presence" ADD CONSTRAINT "agent_presence_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_rules" ADD CONSTRAINT "automation_rules_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_rules" ADD CONSTRAINT "automation_rules_created_by_id_users_id_fk" FOREIGN KEY ("created_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_run_log" ADD CONSTRAINT "automation_run_log_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_run_log" ADD CONSTRAINT "automation_run_log_rule_id_automation_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."automation_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "routing_rules" ADD CONSTRAINT "routing_rules_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "routing_rules" ADD CONSTRAINT "routing_rules_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "routing_rules" ADD CONSTRAINT "routing_rules_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_policies" ADD CONSTRAINT "sla_policies_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "widget_visitors_contact_idx" ON "widget_visitors" USING btree ("account_id","contact_id");--> statement-breakpoint
CREATE INDEX "widget_visitors_external_idx" ON "widget_visitors" USING btree ("inbox_id","external_user_id");--> statement-breakpoint
CREATE INDEX "agent_presence_account_idx" ON "agent_presence" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "automation_rules_list_idx" ON "automation_rules" USING btree ("account_id","kind","created_at");--> statement-breakpoint
CREATE INDEX "automation_rules_event_idx" ON "automation_rules" USING btree ("account_id","event");--> statement-breakpoint
CREATE UNIQUE INDEX "automation_run_log_applied_uq" ON "automation_run_log" USING btree ("event_id","rule_id","action_index") WHERE step = 'action_applied';--> statement-breakpoint
CREATE INDEX "automation_run_log_rule_idx" ON "automation_run_log" USING btree ("account_id","rule_id","id");--> statement-breakpoint
CREATE INDEX "automation_run_log_conversation_idx" ON "automation_run_log" USING btree ("account_id","conversation_id","id") WHERE conversation_id is not null;--> statement-breakpoint
CREATE INDEX "automation_run_log_event_idx" ON "automation_run_log" USING btree ("event_id");--> statement-breakpoint
CREATE UNIQUE INDEX "routing_rules_inbox_uq" ON "routing_rules" USING btree ("inbox_id");--> statement-breakpoint
CREATE INDEX "routing_rules_account_idx" ON "routing_rules" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "sla_policies_account_idx" ON "sla_policies" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "messages_external_id_idx" ON "messages" USING btree ("account_id","external_id") WHERE "messages"."external_id" is not null;
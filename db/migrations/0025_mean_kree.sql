CREATE TABLE "conversion_goals" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"event_name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"attribution_days" integer DEFAULT 30 NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "goal_conversions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"goal_id" integer NOT NULL,
	"contact_id" integer NOT NULL,
	"conversation_id" integer,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sale_trackers" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"attribution_days" integer DEFAULT 30 NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sales" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"source" text NOT NULL,
	"external_id" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"contact_id" integer,
	"sale_tracker_id" integer,
	"conversation_id" integer,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversion_goals" ADD CONSTRAINT "conversion_goals_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goal_conversions" ADD CONSTRAINT "goal_conversions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goal_conversions" ADD CONSTRAINT "goal_conversions_goal_id_conversion_goals_id_fk" FOREIGN KEY ("goal_id") REFERENCES "public"."conversion_goals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goal_conversions" ADD CONSTRAINT "goal_conversions_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sale_trackers" ADD CONSTRAINT "sale_trackers_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_sale_tracker_id_sale_trackers_id_fk" FOREIGN KEY ("sale_tracker_id") REFERENCES "public"."sale_trackers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "conversion_goals_account_name_key" ON "conversion_goals" USING btree ("account_id","name");--> statement-breakpoint
CREATE INDEX "conversion_goals_event_idx" ON "conversion_goals" USING btree ("account_id","event_name");--> statement-breakpoint
CREATE UNIQUE INDEX "goal_conversions_goal_contact_key" ON "goal_conversions" USING btree ("goal_id","contact_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sale_trackers_account_name_key" ON "sale_trackers" USING btree ("account_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "sales_account_source_external_key" ON "sales" USING btree ("account_id","source","external_id");
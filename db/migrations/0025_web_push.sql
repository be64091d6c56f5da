CREATE TABLE "push_segments" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"action_operator" text DEFAULT 'AND' NOT NULL,
	"actions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"property_operator" text DEFAULT 'AND' NOT NULL,
	"properties" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_subscriptions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"inbox_id" integer,
	"visitor_id" text,
	"contact_id" integer,
	"endpoint" text NOT NULL,
	"p256dh" text NOT NULL,
	"auth" text NOT NULL,
	"page_url" text,
	"referrer" text,
	"referrer_type" text DEFAULT 'direct' NOT NULL,
	"browser" text,
	"os" text,
	"platform" text DEFAULT 'desktop' NOT NULL,
	"location" text,
	"timezone" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_vapid_keys" (
	"account_id" integer PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "campaign_recipients" ADD COLUMN "delivered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "push_segment_id" integer;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "push" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "delivered_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "push_segments" ADD CONSTRAINT "push_segments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_vapid_keys" ADD CONSTRAINT "push_vapid_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "push_segments_account_idx" ON "push_segments" USING btree ("account_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "push_subscriptions_account_endpoint_key" ON "push_subscriptions" USING btree ("account_id","endpoint");--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_push_segment_id_push_segments_id_fk" FOREIGN KEY ("push_segment_id") REFERENCES "public"."push_segments"("id") ON DELETE set null ON UPDATE no action;
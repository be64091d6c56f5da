CREATE TABLE "time_entries" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"conversation_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"duration_seconds" integer,
	"note" text DEFAULT '' NOT NULL,
	"billable" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calendar_connections" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"provider" text NOT NULL,
	"external_account" text DEFAULT '' NOT NULL,
	"calendar_id" text DEFAULT 'primary' NOT NULL,
	"access_token" text NOT NULL,
	"refresh_token" text,
	"token_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "meeting_bookings" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"meeting_type_id" integer NOT NULL,
	"host_user_id" integer NOT NULL,
	"contact_id" integer,
	"conversation_id" integer,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"status" text DEFAULT 'confirmed' NOT NULL,
	"calendar_event_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cancelled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "meeting_hosts" (
	"account_id" integer NOT NULL,
	"meeting_type_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "meeting_hosts_meeting_type_id_user_id_pk" PRIMARY KEY("meeting_type_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "meeting_types" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"slot_minutes" integer DEFAULT 30 NOT NULL,
	"weekdays" text DEFAULT 'mon-fri' NOT NULL,
	"day_start" text DEFAULT '09:00' NOT NULL,
	"day_end" text DEFAULT '17:00' NOT NULL,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"booking_window_weeks" integer DEFAULT 2 NOT NULL,
	"buffer_minutes" integer DEFAULT 0 NOT NULL,
	"reminder_minutes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"location" text DEFAULT '' NOT NULL,
	"video_link" text DEFAULT '' NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "domain_events" ADD COLUMN "ip" text;--> statement-breakpoint
ALTER TABLE "domain_events" ADD COLUMN "user_agent" text;--> statement-breakpoint
ALTER TABLE "time_entries" ADD CONSTRAINT "time_entries_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "time_entries" ADD CONSTRAINT "time_entries_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "time_entries" ADD CONSTRAINT "time_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_connections" ADD CONSTRAINT "calendar_connections_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_connections" ADD CONSTRAINT "calendar_connections_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_bookings" ADD CONSTRAINT "meeting_bookings_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_bookings" ADD CONSTRAINT "meeting_bookings_meeting_type_id_meeting_types_id_fk" FOREIGN KEY ("meeting_type_id") REFERENCES "public"."meeting_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_bookings" ADD CONSTRAINT "meeting_bookings_host_user_id_users_id_fk" FOREIGN KEY ("host_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_bookings" ADD CONSTRAINT "meeting_bookings_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_bookings" ADD CONSTRAINT "meeting_bookings_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_hosts" ADD CONSTRAINT "meeting_hosts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_hosts" ADD CONSTRAINT "meeting_hosts_meeting_type_id_meeting_types_id_fk" FOREIGN KEY ("meeting_type_id") REFERENCES "public"."meeting_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_hosts" ADD CONSTRAINT "meeting_hosts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_types" ADD CONSTRAINT "meeting_types_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "time_entries_conversation_idx" ON "time_entries" USING btree ("account_id","conversation_id");--> statement-breakpoint
CREATE INDEX "time_entries_user_idx" ON "time_entries" USING btree ("account_id","user_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "time_entries_running_idx" ON "time_entries" USING btree ("account_id","user_id","conversation_id") WHERE "time_entries"."duration_seconds" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_connections_user_key" ON "calendar_connections" USING btree ("account_id","user_id","provider");--> statement-breakpoint
CREATE INDEX "meeting_bookings_type_idx" ON "meeting_bookings" USING btree ("account_id","meeting_type_id","starts_at");--> statement-breakpoint
CREATE INDEX "meeting_bookings_host_idx" ON "meeting_bookings" USING btree ("account_id","host_user_id","starts_at");--> statement-breakpoint
CREATE UNIQUE INDEX "meeting_bookings_host_slot_key" ON "meeting_bookings" USING btree ("host_user_id","starts_at") WHERE "meeting_bookings"."status" = 'confirmed';--> statement-breakpoint
CREATE UNIQUE INDEX "meeting_types_slug_key" ON "meeting_types" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "meeting_types_account_idx" ON "meeting_types" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "meeting_types_default_key" ON "meeting_types" USING btree ("account_id") WHERE "meeting_types"."is_default";--> statement-breakpoint
CREATE INDEX "domain_events_account_type_idx" ON "domain_events" USING btree ("account_id","type","occurred_at");--> statement-breakpoint
CREATE INDEX "domain_events_account_actor_idx" ON "domain_events" USING btree ("account_id","actor_id","occurred_at");
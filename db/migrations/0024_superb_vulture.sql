CREATE TABLE "analytics_applied_events" (
	"event_id" bigint PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"applied_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "analytics_counters" (
	"account_id" integer NOT NULL,
	"metric" text NOT NULL,
	"dim" text NOT NULL,
	"key" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL,
	"total" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_counters_account_id_metric_dim_key_hour_pk" PRIMARY KEY("account_id","metric","dim","key","hour")
);
--> statement-breakpoint
CREATE TABLE "analytics_durations" (
	"account_id" integer NOT NULL,
	"metric" text NOT NULL,
	"dim" text NOT NULL,
	"key" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"bin" smallint NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_durations_account_id_metric_dim_key_hour_bin_pk" PRIMARY KEY("account_id","metric","dim","key","hour","bin")
);
--> statement-breakpoint
ALTER TABLE "analytics_counters" ADD CONSTRAINT "analytics_counters_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_durations" ADD CONSTRAINT "analytics_durations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "analytics_applied_events_account_idx" ON "analytics_applied_events" USING btree ("account_id");
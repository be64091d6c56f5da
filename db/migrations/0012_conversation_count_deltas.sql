CREATE TABLE "conversation_count_deltas" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"inbox_id" integer NOT NULL,
	"status" text NOT NULL,
	"assignee_id" integer,
	"team_id" integer,
	"priority" smallint NOT NULL,
	"source_type" text NOT NULL,
	"n" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "conversation_count_deltas_account_idx" ON "conversation_count_deltas" USING btree ("account_id");
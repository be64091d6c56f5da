ALTER TABLE "form_responses" ADD COLUMN "pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Hand-written (ADR 112): rate-limit windows are counters, not records. Unlogged, an upsert writes no WAL and waits for no flush; a crash (not a clean restart) empties the table, which forgets the open windows.
ALTER TABLE "rate_limits" SET UNLOGGED;

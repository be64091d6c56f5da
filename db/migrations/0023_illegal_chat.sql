ALTER TABLE "domain_events" ADD COLUMN "ip" text;--> statement-breakpoint
ALTER TABLE "domain_events" ADD COLUMN "user_agent" text;--> statement-breakpoint
CREATE INDEX "domain_events_account_type_idx" ON "domain_events" USING btree ("account_id","type","occurred_at");--> statement-breakpoint
CREATE INDEX "domain_events_account_actor_idx" ON "domain_events" USING btree ("account_id","actor_id","occurred_at");
DROP INDEX "domain_events_subject_idx";--> statement-breakpoint
CREATE INDEX "domain_events_subject_idx" ON "domain_events" USING btree ("account_id","subject_type","subject_id","type","id");
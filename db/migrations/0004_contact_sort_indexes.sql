DROP INDEX "contacts_account_created_idx";--> statement-breakpoint
CREATE INDEX "contacts_account_country_sort_idx" ON "contacts" USING btree ("account_id","country","id");--> statement-breakpoint
CREATE INDEX "contacts_account_email_sort_idx" ON "contacts" USING btree ("account_id",lower("email"),"id");--> statement-breakpoint
CREATE INDEX "contacts_account_interaction_idx" ON "contacts" USING btree ("account_id","last_interaction_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "contacts_account_created_idx" ON "contacts" USING btree ("account_id","id");
DROP INDEX "contact_tags_tag_idx";--> statement-breakpoint
DROP INDEX "contacts_account_country_idx";--> statement-breakpoint
DROP INDEX "contacts_account_assignee_idx";--> statement-breakpoint
CREATE INDEX "contacts_account_name_idx" ON "contacts" USING btree ("account_id",lower("first_name"),lower("last_name"),"id");--> statement-breakpoint
CREATE INDEX "contact_tags_tag_idx" ON "contact_tags" USING btree ("account_id","tag_id","contact_id");--> statement-breakpoint
CREATE INDEX "contacts_account_country_idx" ON "contacts" USING btree ("account_id","country","assignee_id","is_favourite","company_id","id");--> statement-breakpoint
CREATE INDEX "contacts_account_assignee_idx" ON "contacts" USING btree ("account_id","assignee_id","country","is_favourite","company_id","id");
DROP INDEX "conversations_list_idx";--> statement-breakpoint
DROP INDEX "conversations_all_idx";--> statement-breakpoint
DROP INDEX "conversations_assignee_idx";--> statement-breakpoint
DROP INDEX "conversations_inbox_idx";--> statement-breakpoint
CREATE INDEX "conversations_list_idx" ON "conversations" USING btree ("account_id","status","last_message_at","id") WHERE "conversations"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "conversations_all_idx" ON "conversations" USING btree ("account_id","last_message_at","id") WHERE "conversations"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "conversations_assignee_idx" ON "conversations" USING btree ("account_id","assignee_id","status","last_message_at","id") WHERE "conversations"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "conversations_inbox_idx" ON "conversations" USING btree ("account_id","inbox_id","status","last_message_at","id") WHERE "conversations"."deleted_at" is null;
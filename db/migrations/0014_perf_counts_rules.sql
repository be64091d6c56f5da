-- Hand-written (ADR 031): the engine keeps each account's active rules in memory and drops them when told.
-- Every change to automation_rules, to an account's plan or to a plan's features NOTIFYs parley_rules with the
-- account id ('*' for a plan: every account on it), delivered at commit, whoever wrote it.
CREATE OR REPLACE FUNCTION parley_notify_rules() RETURNS trigger AS $$
BEGIN
  IF TG_TABLE_NAME = 'automation_rules' THEN
    IF TG_OP = 'DELETE' THEN
      PERFORM pg_notify('parley_rules', OLD.account_id::text);
    ELSE
      PERFORM pg_notify('parley_rules', NEW.account_id::text);
      IF TG_OP = 'UPDATE' AND OLD.account_id <> NEW.account_id THEN
        PERFORM pg_notify('parley_rules', OLD.account_id::text);
      END IF;
    END IF;
  ELSIF TG_TABLE_NAME = 'accounts' THEN
    PERFORM pg_notify('parley_rules', NEW.id::text);
  ELSE
    PERFORM pg_notify('parley_rules', '*');
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER automation_rules_notify AFTER INSERT OR UPDATE OR DELETE ON automation_rules
  FOR EACH ROW EXECUTE FUNCTION parley_notify_rules();
--> statement-breakpoint
CREATE TRIGGER accounts_plan_notify AFTER UPDATE OF plan_id ON accounts
  FOR EACH ROW WHEN (OLD.plan_id IS DISTINCT FROM NEW.plan_id) EXECUTE FUNCTION parley_notify_rules();
--> statement-breakpoint
CREATE TRIGGER plans_features_notify AFTER UPDATE OF features ON plans
  FOR EACH ROW WHEN (OLD.features IS DISTINCT FROM NEW.features) EXECUTE FUNCTION parley_notify_rules();

--> statement-breakpoint
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
--> statement-breakpoint
-- Hand-written (ADR 032): conversation counts kept as deltas by the writer's own transaction, and the counts of
-- the conversations that exist now as the starting rows.
CREATE OR REPLACE FUNCTION parley_count_conversations() RETURNS trigger AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
    INSERT INTO conversation_count_deltas (account_id, inbox_id, status, assignee_id, team_id, priority, source_type, n)
    VALUES (OLD.account_id, OLD.inbox_id, OLD.status, OLD.assignee_id, OLD.team_id, OLD.priority, OLD.source_type, -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.deleted_at IS NULL THEN
    INSERT INTO conversation_count_deltas (account_id, inbox_id, status, assignee_id, team_id, priority, source_type, n)
    VALUES (NEW.account_id, NEW.inbox_id, NEW.status, NEW.assignee_id, NEW.team_id, NEW.priority, NEW.source_type, 1);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER conversations_count_insert_delete AFTER INSERT OR DELETE ON conversations
  FOR EACH ROW EXECUTE FUNCTION parley_count_conversations();
--> statement-breakpoint
CREATE TRIGGER conversations_count_update AFTER UPDATE OF account_id, inbox_id, status, assignee_id, team_id, priority, source_type, deleted_at ON conversations
  FOR EACH ROW WHEN (
    (OLD.account_id, OLD.inbox_id, OLD.status, OLD.assignee_id, OLD.team_id, OLD.priority, OLD.source_type, OLD.deleted_at IS NULL)
    IS DISTINCT FROM
    (NEW.account_id, NEW.inbox_id, NEW.status, NEW.assignee_id, NEW.team_id, NEW.priority, NEW.source_type, NEW.deleted_at IS NULL)
  ) EXECUTE FUNCTION parley_count_conversations();
--> statement-breakpoint
INSERT INTO conversation_count_deltas (account_id, inbox_id, status, assignee_id, team_id, priority, source_type, n)
SELECT account_id, inbox_id, status, assignee_id, team_id, priority, source_type, count(*)::int
  FROM conversations WHERE deleted_at IS NULL
 GROUP BY account_id, inbox_id, status, assignee_id, team_id, priority, source_type;

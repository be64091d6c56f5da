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

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

-- Custom SQL migration file, put your code below! ---- ADR 101: AI help becomes a plan flag, conversation/aiHelp. The plans that had AI help before (every plan did)
-- and that the catalogue now grants it keep it: Trial, Growth and Enterprise. Starter and Free lose the AI calls
-- and keep the full-text suggestions. Operators' own edits to other flags stay as they are.
UPDATE "plans" SET "features" = jsonb_set("features", '{conversation}', coalesce("features"->'conversation', '{}'::jsonb) || '{"aiHelp": true}'::jsonb) WHERE "key" IN ('trial', 'growth', 'enterprise');

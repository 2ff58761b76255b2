-- An organisation's own cap on its requests in flight per replica (issue 10):
-- 0 keeps the operator's HEDDLE_ORG_CONCURRENCY. It sits with the
-- organisation's budgets: both are limits an admin sets on the budgets page
-- and PUT /api/v1/budgets.

-- +goose Up
ALTER TABLE org_budgets ADD COLUMN max_concurrency integer NOT NULL DEFAULT 0 CHECK (max_concurrency >= 0);

-- +goose Down
ALTER TABLE org_budgets DROP COLUMN max_concurrency;

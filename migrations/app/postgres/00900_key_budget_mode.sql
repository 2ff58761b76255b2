-- Per-key budget mode (SPEC 9): a key's daily and monthly budgets are hard
-- (refuse with 402 once spent, the default) or soft (alert only).

-- +goose Up
ALTER TABLE api_keys ADD COLUMN budget_soft boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE api_keys DROP COLUMN budget_soft;

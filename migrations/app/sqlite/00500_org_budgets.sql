-- Organisation budgets (SPEC 9): one row per organisation with a daily and a
-- monthly limit in micro-dollars (0 = none), each hard (402) or soft (alert
-- only). Spending itself is in budget_spend under "org:<id>/day" and
-- "org:<id>/month". An organisation without a row has no budget. Every
-- query of the store is filtered by org_id.

-- +goose Up
CREATE TABLE org_budgets (
    org_id               text PRIMARY KEY,
    daily_limit_micros   integer NOT NULL DEFAULT 0 CHECK (daily_limit_micros >= 0),
    daily_mode           text NOT NULL DEFAULT 'hard' CHECK (daily_mode IN ('hard', 'soft')),
    monthly_limit_micros integer NOT NULL DEFAULT 0 CHECK (monthly_limit_micros >= 0),
    monthly_mode         text NOT NULL DEFAULT 'hard' CHECK (monthly_mode IN ('hard', 'soft')),
    updated_at           datetime NOT NULL
);

-- +goose Down
DROP TABLE org_budgets;

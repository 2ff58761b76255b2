-- Budget spending (SPEC 9): micro-dollars spent per budget scope and period.
-- scope is a budget's scope and period ("org:<id>/month", "key:<id>/day");
-- period_start is the period's UTC start in Unix milliseconds. Writers add
-- with INSERT ... ON CONFLICT DO UPDATE, so every replica's increments count.

-- +goose Up
CREATE TABLE budget_spend (
    scope        text COLLATE "C" NOT NULL,
    period_start bigint NOT NULL,
    micros       bigint NOT NULL,
    PRIMARY KEY (scope, period_start)
);

-- +goose Down
DROP TABLE budget_spend;

-- Key rate limits shared by replicas without Redis (issue 10): one row per
-- counter ("r:<key id>" requests, "t:<key id>" tokens) and one-minute window
-- (period_start, Unix milliseconds). Each replica counts in memory and adds
-- its counts here on an interval (admission.RateCounters); rows of past
-- windows are swept. The table has budget_spend's shape (micros holds the
-- count) so one store serves both (billing/sqlstore).

-- +goose Up
CREATE TABLE rate_counters (
    scope        text NOT NULL,
    period_start bigint NOT NULL,
    micros       bigint NOT NULL,
    PRIMARY KEY (scope, period_start)
);
CREATE INDEX rate_counters_period_idx ON rate_counters (period_start);

-- +goose Down
DROP TABLE rate_counters;

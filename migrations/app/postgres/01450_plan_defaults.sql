-- A plan's default rate limits and concurrency cap (issue 12, build item 3):
-- an organisation on the plan gets them where neither the organisation
-- (max_concurrency) nor its key (rpm, tpm) sets its own; 0 is no default.

-- +goose Up
ALTER TABLE credit_plans ADD COLUMN default_rpm integer NOT NULL DEFAULT 0 CHECK (default_rpm >= 0);
ALTER TABLE credit_plans ADD COLUMN default_tpm integer NOT NULL DEFAULT 0 CHECK (default_tpm >= 0);
ALTER TABLE credit_plans ADD COLUMN default_max_concurrency integer NOT NULL DEFAULT 0 CHECK (default_max_concurrency >= 0);

-- +goose Down
ALTER TABLE credit_plans DROP COLUMN default_max_concurrency;
ALTER TABLE credit_plans DROP COLUMN default_tpm;
ALTER TABLE credit_plans DROP COLUMN default_rpm;

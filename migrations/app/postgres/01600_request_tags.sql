-- Request tags (comma-joined, sorted), the baseline model savings were priced
-- against and the router's candidate scores (issue 13).

-- +goose Up
ALTER TABLE requests ADD COLUMN tags text NOT NULL DEFAULT '';
ALTER TABLE requests ADD COLUMN baseline_model text NOT NULL DEFAULT '';
ALTER TABLE requests ADD COLUMN candidates text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE requests DROP COLUMN candidates;
ALTER TABLE requests DROP COLUMN baseline_model;
ALTER TABLE requests DROP COLUMN tags;

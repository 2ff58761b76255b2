-- Key tags (issue 13): comma-joined, sorted; recorded on every request of
-- the key with the x-heddle-tags header's.

-- +goose Up
ALTER TABLE api_keys ADD COLUMN tags text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE api_keys DROP COLUMN tags;

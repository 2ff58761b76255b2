-- Organisation model aliases (SPEC 6): a JSON object mapping a requested model
-- name (lower case) to a catalog model id or "auto". '{}' means none.

-- +goose Up
ALTER TABLE org_routing ADD COLUMN model_aliases text NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE org_routing DROP COLUMN model_aliases;

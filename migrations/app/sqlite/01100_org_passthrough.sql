-- Organisation pass-through (SPEC 6): passthrough_off refuses model names the
-- catalog lacks instead of passing them to the provider their name names.
-- false (the default) passes them through.

-- +goose Up
ALTER TABLE org_routing ADD COLUMN passthrough_off boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE org_routing DROP COLUMN passthrough_off;

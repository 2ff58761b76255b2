-- Removed members' keys (issue 14): an organisation chooses whether the keys
-- a removed member created are revoked (the default) or suspended, which an
-- admin can undo. api_keys.suspended_at is set while a key is suspended.

-- +goose Up
ALTER TABLE orgs ADD COLUMN removed_member_keys text NOT NULL DEFAULT 'revoke';
ALTER TABLE api_keys ADD COLUMN suspended_at timestamptz;

-- +goose Down
ALTER TABLE api_keys DROP COLUMN suspended_at;
ALTER TABLE orgs DROP COLUMN removed_member_keys;

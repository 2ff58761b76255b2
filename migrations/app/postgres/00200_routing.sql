-- Routing session pins (SPEC 6): one row per (org, key, end user, session,
-- role), stored under the SHA-256 of that key so session ids and end-user ids
-- are never kept in the clear. Times are Unix milliseconds. Expired rows are
-- ignored on read and purged lazily by the store.

-- +goose Up
CREATE TABLE routing_pins (
    key_hash      text COLLATE "C" PRIMARY KEY,
    org_id        text NOT NULL,
    model         text NOT NULL,
    turns         integer NOT NULL,
    tokens        bigint NOT NULL,
    created_at_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    expires_at_ms bigint NOT NULL
);
CREATE INDEX routing_pins_expires_idx ON routing_pins (expires_at_ms);
CREATE INDEX routing_pins_org_idx ON routing_pins (org_id);

-- +goose Down
DROP TABLE routing_pins;

-- Opt-in storage of prompt and response content (SPEC 8). org_privacy holds
-- one row per organisation that changed its setting; no row means content is
-- not stored. request_content holds one row per stored request, both sides
-- sealed under the organisation's data key (dek_version says which) with
-- associated data "content|v1|org_id|request_id"; rows past expires_ms are
-- deleted by the janitor. Every query of the store is filtered by org_id.

-- +goose Up
CREATE TABLE org_privacy (
    org_id         text PRIMARY KEY,
    store_content  boolean NOT NULL DEFAULT false,
    retention_days integer NOT NULL DEFAULT 7 CHECK (retention_days BETWEEN 1 AND 90),
    updated_at     timestamptz NOT NULL
);

CREATE TABLE request_content (
    org_id             text NOT NULL,
    request_id         text NOT NULL,
    key_id             text NOT NULL DEFAULT '',
    created_at         timestamptz NOT NULL,
    expires_at         timestamptz NOT NULL,
    expires_ms         bigint NOT NULL, -- expires_at in unix ms, what the janitor compares
    dek_version        bigint NOT NULL,
    request_sealed     bytea NOT NULL,
    response_sealed    bytea NOT NULL,
    request_truncated  boolean NOT NULL DEFAULT false,
    response_truncated boolean NOT NULL DEFAULT false,
    PRIMARY KEY (org_id, request_id)
);
CREATE INDEX request_content_expires ON request_content (expires_ms);

-- +goose Down
DROP TABLE request_content;
DROP TABLE org_privacy;

-- Analytics, the embedded store (SPEC 8): one row per upstream attempt and one
-- per client request, the same columns as the ClickHouse tables. event_id is
-- the primary key, so a replayed row is ignored (ON CONFLICT DO NOTHING).
-- time_ms (Unix milliseconds) is what queries filter, order and page by;
-- event_id uses the C collation so cursor order is byte order on every store.

-- +goose Up
CREATE TABLE attempts (
    event_id        text COLLATE "C" PRIMARY KEY,
    time            timestamptz NOT NULL,
    time_ms         bigint NOT NULL,
    org_id          text NOT NULL,
    key_id          text NOT NULL,
    request_id      text NOT NULL,
    operation_id    text NOT NULL,
    purpose         text NOT NULL,
    policy_id       text NOT NULL,
    bundle_id       text NOT NULL,
    bundle_revision text NOT NULL,
    attempt_index   integer NOT NULL,
    model           text NOT NULL,
    provider        text NOT NULL,
    upstream        text NOT NULL,
    credential_id   text NOT NULL,
    outcome         text NOT NULL,
    reason          text NOT NULL,
    status          integer NOT NULL,
    latency_ms      double precision NOT NULL,
    ttfb_ms         double precision NOT NULL,
    input_tokens    bigint NOT NULL,
    output_tokens   bigint NOT NULL,
    cache_read      bigint NOT NULL,
    cache_write     bigint NOT NULL,
    reasoning       bigint NOT NULL,
    cost_micros     bigint NOT NULL,
    stream          boolean NOT NULL
);
CREATE INDEX attempts_org_time_idx ON attempts (org_id, time_ms);
CREATE INDEX attempts_org_request_idx ON attempts (org_id, request_id);

CREATE TABLE requests (
    event_id        text COLLATE "C" PRIMARY KEY,
    time            timestamptz NOT NULL,
    time_ms         bigint NOT NULL,
    request_id      text NOT NULL,
    org_id          text NOT NULL,
    key_id          text NOT NULL,
    end_user        text NOT NULL,
    session         text NOT NULL,
    format          text NOT NULL,
    requested_model text NOT NULL,
    served_model    text NOT NULL,
    provider        text NOT NULL,
    route_kind      text NOT NULL,
    decision        text NOT NULL,
    cache_hit       boolean NOT NULL,
    stream          boolean NOT NULL,
    fallback        boolean NOT NULL,
    attempts        integer NOT NULL,
    input_tokens    bigint NOT NULL,
    output_tokens   bigint NOT NULL,
    cache_read      bigint NOT NULL,
    cache_write     bigint NOT NULL,
    reasoning       bigint NOT NULL,
    cost_micros     bigint NOT NULL,
    baseline_micros bigint NOT NULL,
    savings_micros  bigint NOT NULL,
    latency_ms      double precision NOT NULL,
    ttfb_ms         double precision NOT NULL,
    status          integer NOT NULL,
    error_code      text NOT NULL
);
CREATE INDEX requests_org_time_idx ON requests (org_id, time_ms, event_id);
CREATE INDEX requests_org_request_idx ON requests (org_id, request_id);

-- +goose Down
DROP TABLE requests;
DROP TABLE attempts;

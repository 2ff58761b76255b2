-- One row per upstream attempt (SPEC 7, 8). ReplacingMergeTree keyed by
-- (org_id, time, event_id): a replayed row collapses into the first one and
-- queries read with FINAL. time (DateTime) partitions by month; time_ms keeps
-- the millisecond (DateTime64 is not available on ClickHouse 18.16).
CREATE TABLE IF NOT EXISTS attempts (
    event_id String,
    time DateTime,
    time_ms Int64,
    org_id String,
    key_id String,
    request_id String,
    operation_id String,
    purpose String,
    policy_id String,
    bundle_id String,
    bundle_revision String,
    attempt_index Int32,
    model String,
    provider String,
    upstream String,
    credential_id String,
    outcome String,
    reason String,
    status Int32,
    latency_ms Float64,
    ttfb_ms Float64,
    input_tokens Int64,
    output_tokens Int64,
    cache_read Int64,
    cache_write Int64,
    reasoning Int64,
    cost_micros Int64,
    stream UInt8
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(time)
ORDER BY (org_id, time, event_id)

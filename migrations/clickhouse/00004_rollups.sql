-- Hourly rollups of requests for the dashboard and cost reports (SPEC 8):
-- one row per (organisation, hour, served model, key, route kind) summed on
-- insert by a materialized view, so a 30-day report reads hundreds of rows per
-- organisation instead of millions. Rows are deduplicated at ingest (the
-- Store refuses event ids it holds), so the sums are exact. The view sees only
-- rows inserted after it exists: heddle_rollup_epoch records when that was,
-- and readers use the rollup only for hours after the earliest epoch (the raw
-- table answers for older rows). hour is a Unix-hour DateTime, independent of
-- the server's time zone.
CREATE TABLE IF NOT EXISTS requests_hourly (
    org_id String,
    hour DateTime,
    served_model String,
    key_id String,
    route_kind String,
    requests UInt64,
    errors UInt64,
    cache_hits UInt64,
    attempts Int64,
    input_tokens Int64,
    output_tokens Int64,
    cost_micros Int64,
    baseline_micros Int64,
    savings_micros Int64,
    latency_sum Float64
) ENGINE = SummingMergeTree()
PARTITION BY toYYYYMM(hour)
ORDER BY (org_id, hour, served_model, key_id, route_kind);

CREATE MATERIALIZED VIEW IF NOT EXISTS requests_hourly_mv TO requests_hourly AS
SELECT
    org_id,
    toDateTime(intDiv(toUInt32(time), 3600) * 3600) AS hour,
    served_model,
    key_id,
    route_kind,
    count() AS requests,
    countIf(error_code != '' OR status >= 400) AS errors,
    countIf(cache_hit = 1) AS cache_hits,
    sum(toInt64(attempts)) AS attempts,
    sum(input_tokens) AS input_tokens,
    sum(output_tokens) AS output_tokens,
    sum(cost_micros) AS cost_micros,
    sum(baseline_micros) AS baseline_micros,
    sum(savings_micros) AS savings_micros,
    sum(latency_ms) AS latency_sum
FROM requests
GROUP BY org_id, hour, served_model, key_id, route_kind;

CREATE TABLE IF NOT EXISTS heddle_rollup_epoch (
    name String,
    since DateTime
) ENGINE = MergeTree()
ORDER BY name;

INSERT INTO heddle_rollup_epoch (name, since) SELECT 'requests_hourly', now()

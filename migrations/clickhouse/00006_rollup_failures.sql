-- Hourly rollup of failed (and skipped) attempts per reason for the
-- dashboard's failure reasons (SPEC 8): one row per (organisation, hour,
-- reason) aggregated on insert by a materialized view. The distinct requests
-- a reason touched are kept as a uniqExact state, which merges exactly across
-- hours and with the raw table's states at a range's edges (one request's
-- attempts may fall in two hours). Epoch and hour as in 00004.
CREATE TABLE IF NOT EXISTS attempts_hourly_reason (
    org_id String,
    hour DateTime,
    reason String,
    attempts AggregateFunction(count),
    cost_micros AggregateFunction(sum, Int64),
    requests AggregateFunction(uniqExact, String)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(hour)
ORDER BY (org_id, hour, reason);

CREATE MATERIALIZED VIEW IF NOT EXISTS attempts_hourly_reason_mv TO attempts_hourly_reason AS
SELECT
    org_id,
    toDateTime(intDiv(toUInt32(time), 3600) * 3600) AS hour,
    reason,
    countState() AS attempts,
    sumState(cost_micros) AS cost_micros,
    uniqExactState(request_id) AS requests
FROM attempts
WHERE reason != ''
GROUP BY org_id, hour, reason;

INSERT INTO heddle_rollup_epoch (name, since) SELECT 'attempts_hourly_reason', now()

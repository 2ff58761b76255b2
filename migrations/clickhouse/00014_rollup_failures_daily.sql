-- Daily rollup of failed attempts per reason (SPEC 8), as 00013 but per UTC
-- day: a 7-day dashboard merges seven uniqCombined states per reason
-- instead of 168 (merging a busy organisation's hourly states took 200 ms
-- alone, more beside the dashboard's other reads). Readers use it for the
-- whole days of a range after its epoch, 00013 for the whole hours at the
-- edges and the raw rows for the rest. day is a Unix-day DateTime.
CREATE TABLE IF NOT EXISTS attempts_daily_reason_approx (
    org_id String,
    day DateTime,
    reason String,
    attempts AggregateFunction(count),
    cost_micros AggregateFunction(sum, Int64),
    requests AggregateFunction(uniqCombined, String)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (org_id, day, reason)
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS attempts_daily_reason_approx_mv TO attempts_daily_reason_approx AS
SELECT
    org_id,
    toDateTime(intDiv(toUInt32(time), 86400) * 86400) AS day,
    reason,
    countState() AS attempts,
    sumState(cost_micros) AS cost_micros,
    uniqCombinedState(request_id) AS requests
FROM attempts
WHERE reason != ''
GROUP BY org_id, day, reason;

INSERT INTO heddle_rollup_epoch (name, since) SELECT 'attempts_daily_reason_approx', now()

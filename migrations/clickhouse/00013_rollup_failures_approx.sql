-- Hourly rollup of failed attempts per reason whose distinct-request counts
-- are uniqCombined states (SPEC 8). Its granules are small (256 rows): a
-- state weighs kilobytes, and a read should not decode the neighbouring
-- organisations' states of a whole 8192-row granule. 00006's exact uniqExact states hold every
-- failed request's id: merging a week of them for a busy organisation took
-- seconds and hundreds of MiB. uniqCombined's states are small (an exact set
-- for few requests, then HyperLogLog), so a range the rollup answers for
-- counts its distinct failed requests within about 1% (exact for small
-- counts); attempts and cost stay exact. A range without whole hours after
-- the epoch is read raw and exact. Readers use it as they used 00006's
-- (which its view still fills, for replicas of an older Heddle).
CREATE TABLE IF NOT EXISTS attempts_hourly_reason_approx (
    org_id String,
    hour DateTime,
    reason String,
    attempts AggregateFunction(count),
    cost_micros AggregateFunction(sum, Int64),
    requests AggregateFunction(uniqCombined, String)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(hour)
ORDER BY (org_id, hour, reason)
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS attempts_hourly_reason_approx_mv TO attempts_hourly_reason_approx AS
SELECT
    org_id,
    toDateTime(intDiv(toUInt32(time), 3600) * 3600) AS hour,
    reason,
    countState() AS attempts,
    sumState(cost_micros) AS cost_micros,
    uniqCombinedState(request_id) AS requests
FROM attempts
WHERE reason != ''
GROUP BY org_id, hour, reason;

INSERT INTO heddle_rollup_epoch (name, since) SELECT 'attempts_hourly_reason_approx', now()

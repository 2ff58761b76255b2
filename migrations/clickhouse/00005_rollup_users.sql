-- Daily rollup of requests per end user for the cost report by user (SPEC 8):
-- one row per (organisation, UTC day, end user) summed on insert by a
-- materialized view. The hourly rollup (00004) leaves the user out because
-- users are many; a day holds several requests of most active users, and a
-- report's period is whole UTC days. Like 00004 it is exact (rows are
-- deduplicated at ingest) and has an epoch: readers use it only for the whole
-- days after heddle_rollup_epoch's row, the raw table for older rows and for
-- partial days. day is a Unix-day DateTime, independent of the server's time
-- zone.
CREATE TABLE IF NOT EXISTS requests_daily_user (
    org_id String,
    day DateTime,
    end_user String,
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
PARTITION BY toYYYYMM(day)
ORDER BY (org_id, day, end_user);

CREATE MATERIALIZED VIEW IF NOT EXISTS requests_daily_user_mv TO requests_daily_user AS
SELECT
    org_id,
    toDateTime(intDiv(toUInt32(time), 86400) * 86400) AS day,
    end_user,
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
GROUP BY org_id, day, end_user;

INSERT INTO heddle_rollup_epoch (name, since) SELECT 'requests_daily_user', now()

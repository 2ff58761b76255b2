-- Weekly rollup of requests per end user (SPEC 8): one row per (organisation,
-- Unix week, end user) summed on insert by a materialized view. The daily
-- rollup (00005) barely compresses when users are many and each makes a
-- request or two a day: a 30-day report by user read a row per user and day.
-- A week gathers most of an active user's requests into one row, so a 30-day
-- report reads its four or five whole weeks here and only the days at the
-- edges from the daily rollup (and the partial days raw). Like 00005 it is
-- exact (rows are deduplicated at ingest) and has an epoch: readers use it
-- only for the whole weeks after heddle_rollup_epoch's row. week is the
-- start of a Unix week (weeks start on Thursdays, as 1970-01-01 did): a
-- DateTime independent of the server's time zone.
CREATE TABLE IF NOT EXISTS requests_weekly_user (
    org_id String,
    week DateTime,
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
PARTITION BY toYYYYMM(week)
ORDER BY (org_id, week, end_user);

CREATE MATERIALIZED VIEW IF NOT EXISTS requests_weekly_user_mv TO requests_weekly_user AS
SELECT
    org_id,
    toDateTime(intDiv(toUInt32(time), 604800) * 604800) AS week,
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
GROUP BY org_id, week, end_user;

INSERT INTO heddle_rollup_epoch (name, since) SELECT 'requests_weekly_user', now()

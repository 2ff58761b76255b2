-- Weekly rollup of requests per end user keyed by integers, for the pages
-- of the report by user: they rank the organisation's users by requests,
-- then sum the columns of the page's users, and grouping a hundred thousand
-- user strings was most of the rank's time. One row per (organisation,
-- Unix week, user_hash, user_check) summed on insert by a materialized
-- view, like 00011: user_hash is cityHash64 of the end user, user_check
-- sipHash64 of it. The rank groups user_hash and reads no strings; two users
-- whose user_hash collides keep apart rows (their user_check differs), so a
-- reader sees min(user_check) != max(user_check) and ranks by the strings
-- instead. The sum pass finds the page's users by user_hash (an integer
-- column, no hashing of strings) and groups them by end_user, the same in
-- every row of a key. Exact like 00011, with an epoch (readers use it only
-- for the whole weeks after heddle_rollup_epoch's row, 00011 before them).
CREATE TABLE IF NOT EXISTS requests_weekly_user_rank (
    org_id String,
    week DateTime,
    user_hash UInt64,
    user_check UInt64,
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
) ENGINE = SummingMergeTree((requests, errors, cache_hits, attempts, input_tokens, output_tokens, cost_micros,
    baseline_micros, savings_micros, latency_sum))
PARTITION BY toYYYYMM(week)
ORDER BY (org_id, week, user_hash, user_check);

CREATE MATERIALIZED VIEW IF NOT EXISTS requests_weekly_user_rank_mv TO requests_weekly_user_rank AS
SELECT
    org_id,
    toDateTime(intDiv(toUInt32(time), 604800) * 604800) AS week,
    cityHash64(end_user) AS user_hash,
    sipHash64(end_user) AS user_check,
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

INSERT INTO heddle_rollup_epoch (name, since) SELECT 'requests_weekly_user_rank', now()

-- Weekly rank rollup of requests per end user, keyed by integers: a page of
-- the report by user ranks the organisation's users by requests before it
-- sums their columns, and grouping a hundred thousand user strings was most
-- of that pass's time (grouping the same rows by an integer takes a
-- fraction of it). One row per (organisation, Unix week, user_hash,
-- user_check), requests summed on insert by a materialized view:
-- user_hash is cityHash64 of the end user, user_check sipHash64 of it. Two
-- users whose user_hash collides keep apart rows (their user_check differs),
-- so a reader that groups by user_hash sees min(user_check) !=
-- max(user_check) and ranks by the strings instead. No string column: the
-- page's users are named by a second pass over requests_weekly_user (00011).
-- Like 00011 it is exact and has an epoch (readers use it only for the
-- whole weeks after heddle_rollup_epoch's row, 00011 before them).
CREATE TABLE IF NOT EXISTS requests_weekly_user_rank (
    org_id String,
    week DateTime,
    user_hash UInt64,
    user_check UInt64,
    requests UInt64
) ENGINE = SummingMergeTree((requests))
PARTITION BY toYYYYMM(week)
ORDER BY (org_id, week, user_hash, user_check);

CREATE MATERIALIZED VIEW IF NOT EXISTS requests_weekly_user_rank_mv TO requests_weekly_user_rank AS
SELECT
    org_id,
    toDateTime(intDiv(toUInt32(time), 604800) * 604800) AS week,
    cityHash64(end_user) AS user_hash,
    sipHash64(end_user) AS user_check,
    count() AS requests
FROM requests
GROUP BY org_id, week, user_hash, user_check;

INSERT INTO heddle_rollup_epoch (name, since) SELECT 'requests_weekly_user_rank', now()

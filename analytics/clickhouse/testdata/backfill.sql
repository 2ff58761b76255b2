-- Fills the rollups a database's synthesized rows predate (rollups whose
-- migration came after the rows: their views never saw them), for the scale
-- benchmarks reusing a database. Each statement fills one rollup, named
-- third ("INSERT INTO <table>"); a benchmark runs it only when that rollup
-- is empty, then moves the rollup's epoch back. Statements are separated by
-- ';;'.
INSERT INTO requests_weekly_user
SELECT org_id, toDateTime(intDiv(toUInt32(day), 604800) * 604800) AS week, end_user, sum(requests), sum(errors),
    sum(cache_hits), sum(attempts), sum(input_tokens), sum(output_tokens), sum(cost_micros), sum(baseline_micros),
    sum(savings_micros), sum(latency_sum)
FROM requests_daily_user
GROUP BY org_id, week, end_user;;
INSERT INTO requests_hourly_latency
SELECT org_id, toDateTime(intDiv(toUInt32(time), 3600) * 3600) AS hour, kind,
    if(if(kind = 0, latency_ms, ttfb_ms) < 1, toUInt16(0),
        toUInt16(least(floor(log(if(kind = 0, latency_ms, ttfb_ms)) / log(1.02)) + 1, 65535))) AS bucket,
    count() AS n
FROM requests
ARRAY JOIN [0, 1] AS kind
WHERE kind = 0 OR ttfb_ms > 0
GROUP BY org_id, hour, kind, bucket
;;
INSERT INTO attempts_hourly_reason_exact
SELECT org_id, hour, reason, sum(a), sum(c), sum(r)
FROM (
    SELECT org_id, toDateTime(intDiv(toUInt32(time), 3600) * 3600) AS hour, reason, count() AS a, sum(cost_micros) AS c,
        toUInt64(0) AS r
    FROM attempts WHERE reason != '' GROUP BY org_id, hour, reason
    UNION ALL
    SELECT org_id, toDateTime(intDiv(toUInt32(first), 3600) * 3600) AS hour, reason, toUInt64(0) AS a, toInt64(0) AS c,
        count() AS r
    FROM (SELECT org_id, request_id, reason, min(time) AS first FROM attempts WHERE reason != '' GROUP BY org_id, request_id, reason)
    GROUP BY org_id, hour, reason
)
GROUP BY org_id, hour, reason
;;
INSERT INTO attempts_daily_reason_exact
SELECT org_id, toDateTime(intDiv(toUInt32(hour), 86400) * 86400) AS day, reason, sum(attempts), sum(cost_micros), sum(requests)
FROM attempts_hourly_reason_exact
GROUP BY org_id, day, reason
;;
INSERT INTO requests_weekly_user_rank
SELECT org_id, week, cityHash64(end_user) AS user_hash, sipHash64(end_user) AS user_check, end_user, sum(requests),
    sum(errors), sum(cache_hits), sum(attempts), sum(input_tokens), sum(output_tokens), sum(cost_micros),
    sum(baseline_micros), sum(savings_micros), sum(latency_sum)
FROM requests_weekly_user
GROUP BY org_id, week, end_user

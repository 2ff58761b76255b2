-- Exact distinct failed requests per reason (SPEC 8) as plain sums. The
-- Store marks, at ingest, the one attempt row per (request, reason) that
-- counts the request under the reason: its first attempt with that reason
-- (counts_request = 1; 2 on its other attempts with the reason, 0 on rows
-- inserted before this column, which readers count by distinct request id;
-- see analytics/clickhouse/dedup.go). Replayed rows
-- are refused at ingest (their event ids are stored), so a mark is never
-- written twice and the sums equal FINAL's answer. A request counts in the
-- hour (day) of its first attempt with the reason. Hourly and daily, summed
-- on insert as 00004's rollups; they replace 00013 and 00014's uniqCombined
-- states (within about 1%), whose views stay for replicas of an older Heddle
-- during a rolling deploy. Rows an older replica inserts carry no mark
-- (counts_request 0): finish a rollout within the hour after this migration
-- (the rollups answer from the second whole hour after their epoch on).
ALTER TABLE attempts ADD COLUMN counts_request UInt8 DEFAULT 0;

CREATE TABLE IF NOT EXISTS attempts_hourly_reason_exact (
    org_id String,
    hour DateTime,
    reason String,
    attempts UInt64,
    cost_micros Int64,
    requests UInt64
) ENGINE = SummingMergeTree()
PARTITION BY toYYYYMM(hour)
ORDER BY (org_id, hour, reason);

CREATE MATERIALIZED VIEW IF NOT EXISTS attempts_hourly_reason_exact_mv TO attempts_hourly_reason_exact AS
SELECT
    org_id,
    toDateTime(intDiv(toUInt32(time), 3600) * 3600) AS hour,
    reason,
    count() AS attempts,
    sum(cost_micros) AS cost_micros,
    sum(toUInt64(counts_request = 1)) AS requests
FROM attempts
WHERE reason != ''
GROUP BY org_id, hour, reason;

CREATE TABLE IF NOT EXISTS attempts_daily_reason_exact (
    org_id String,
    day DateTime,
    reason String,
    attempts UInt64,
    cost_micros Int64,
    requests UInt64
) ENGINE = SummingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (org_id, day, reason);

CREATE MATERIALIZED VIEW IF NOT EXISTS attempts_daily_reason_exact_mv TO attempts_daily_reason_exact AS
SELECT
    org_id,
    toDateTime(intDiv(toUInt32(time), 86400) * 86400) AS day,
    reason,
    count() AS attempts,
    sum(cost_micros) AS cost_micros,
    sum(toUInt64(counts_request = 1)) AS requests
FROM attempts
WHERE reason != ''
GROUP BY org_id, day, reason;

INSERT INTO heddle_rollup_epoch (name, since) SELECT 'attempts_hourly_reason_exact', now();

INSERT INTO heddle_rollup_epoch (name, since) SELECT 'attempts_daily_reason_exact', now()

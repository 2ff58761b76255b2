-- Stops writing 00013 and 00014's uniqCombined states of failed requests:
-- nothing reads them since 00015 (Breakdown by failure reason reads
-- attempts_daily_reason_exact and attempts_hourly_reason_exact, the sums of
-- the ingest marks), and each view ran on every insert into attempts,
-- hashing every failed attempt's request id into a state. Their views were
-- kept for replicas of an older Heddle during the rolling deploy of 00015;
-- finish rolling out 00015's release before this one (an older replica
-- would read approx rollups that no longer grow). The tables and their rows
-- stay, like 00006's after 00016.
DROP TABLE IF EXISTS attempts_hourly_reason_approx_mv;

DROP TABLE IF EXISTS attempts_daily_reason_approx_mv

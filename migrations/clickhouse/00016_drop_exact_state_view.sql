-- Stops writing 00006's uniqExact states of failed requests: nothing reads
-- them since 00013 (this release reads 00015's marks, the one before it
-- 00013 and 00014, whose views stay during a rolling deploy), and they were
-- the costliest rollup to write (every failed request's id per hour). The
-- table and its rows stay.
DROP TABLE IF EXISTS attempts_hourly_reason_mv

// Package clickhouse is the ClickHouse adapter of the analytics Store and
// Reader (clickhouse-go v2, native protocol). It keeps to what ClickHouse
// 18.16 and current releases both accept: inserts only through PrepareBatch
// with explicit column lists, client-side parameter binding, no CTEs, window
// functions, toStartOfInterval, JSON functions, DateTime64 or Map. Tables are
// ReplacingMergeTree keyed by (org_id, time, event_id) and read with FINAL,
// so replayed rows never double count. Its own small migration runner applies
// migrations/clickhouse (goose's ClickHouse dialect hangs on 18.16).
//
// Ring: adapter. Network I/O to ClickHouse only.
package clickhouse

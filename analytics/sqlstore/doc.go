// Package sqlstore is the embedded analytics Store and Reader: the attempts
// and requests tables in the app database (SQLite by default, Postgres when
// configured) through gorm. The schema comes from migrations/app
// (00100_analytics.sql); event_id is the primary key and inserts use ON
// CONFLICT DO NOTHING, so replayed rows never double count. Queries use only
// SQL both dialects accept; percentiles are read by ORDER BY ... OFFSET.
//
// Ring: adapter. I/O to the app database only.
package sqlstore

// Package sqlstore implements tenancy.Store over the app database (SQLite or
// Postgres) with gorm. The schema comes only from the SQL migrations in
// migrations/ (never AutoMigrate). Times are written in UTC; multi-row
// changes run in one transaction; compare-and-swap updates check rows
// affected.
//
// Ring: adapter. It is constructed only by app and talks only to the
// *gorm.DB it is given.
package sqlstore

// Package sqlstore keeps budget spending in the app database (table
// budget_spend, migration 00400) through gorm, on SQLite and Postgres alike,
// so every replica reads and adds to the same counters.
//
// Ring: adapter. It implements billing.SpendStore, is constructed only by
// app, and talks only to the *gorm.DB it is given. The schema comes from the
// SQL migrations, never AutoMigrate.
package sqlstore

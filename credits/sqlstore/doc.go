// Package sqlstore keeps hosted billing (tables operators, credit_plans,
// org_plans, credit_accounts, credit_ledger and credit_reservations,
// migration 01400) in the app database through gorm, on SQLite and Postgres
// alike, so every replica reserves against the same balance.
//
// Ring: adapter. It implements credits.Store, is constructed only by app,
// and talks only to the *gorm.DB it is given. The schema comes from the SQL
// migrations, never AutoMigrate.
package sqlstore

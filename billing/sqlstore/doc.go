// Package sqlstore keeps budget spending (table budget_spend, migration
// 00400) and organisations' budget settings (table org_budgets, migration
// 00500) in the app database through gorm, on SQLite and Postgres alike, so
// every replica reads and adds to the same counters and settings.
//
// Ring: adapter. It implements billing.SpendStore and billing.OrgBudgetStore,
// is constructed only by app, and talks only to the *gorm.DB it is given. The
// schema comes from the SQL migrations, never AutoMigrate.
package sqlstore

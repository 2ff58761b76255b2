// Package orgsql keeps organisations' routing settings and their trained
// bundles and their training jobs in the app database through gorm, on
// SQLite and Postgres alike (tables org_routing and org_bundles, migration
// 00300; routing_training_jobs, migration 01700). Every query is
// filtered by org_id, so one organisation never reads or changes another's
// settings or bundles.
//
// Ring: adapter. It implements routing.OrgSettingsStore,
// routing.OrgBundleStore and routing.TrainingJobStore (with its sweeper)
// and talks only to the *gorm.DB it is given.
package orgsql

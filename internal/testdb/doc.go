// Package testdb gives tests a fresh, migrated app database of either
// dialect: a SQLite file in t.TempDir() or a Postgres database
// heddle_test_<random> created on HEDDLE_TEST_POSTGRES_URL and dropped when
// the test ends.
//
// It is a normal package used only from tests (the store adapters' _test.go
// files); production code never imports it. Ring: root (tooling). I/O: it
// opens databases, creates and drops Postgres databases and reads
// HEDDLE_TEST_POSTGRES_URL; an unreachable Postgres fails the test, never
// skips it.
package testdb

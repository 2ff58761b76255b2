// Package testdb gives tests a fresh, migrated app database of either
// dialect: a SQLite file in t.TempDir() or a Postgres database
// heddle_test_<random> created on HEDDLE_TEST_POSTGRES_URL and dropped when
// the test ends; and a share of the test Redis at HEDDLE_TEST_REDIS_URL: a
// client and a key prefix of the test's own, whose keys are deleted when
// the test ends (NewRedis).
//
// It is a normal package used only from tests (the store adapters' _test.go
// files); production code never imports it. Ring: root (tooling). I/O: it
// opens databases, creates and drops Postgres databases, connects to Redis
// and deletes the test's keys there, and reads HEDDLE_TEST_POSTGRES_URL and
// HEDDLE_TEST_REDIS_URL; an unreachable Postgres or Redis fails the test,
// never skips it.
package testdb

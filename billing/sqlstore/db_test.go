package sqlstore_test

import (
	"testing"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/internal/testdb"
)

// eachDB runs fn against a fresh SQLite and a fresh Postgres database, with
// n handles ("replicas") on each.
func eachDB(t *testing.T, n int, fn func(t *testing.T, dbs []*gorm.DB)) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		dbs := []*gorm.DB{d.DB}
		for len(dbs) < n {
			dbs = append(dbs, d.Reopen(t))
		}
		fn(t, dbs)
	})
}

package orgsql_test

import (
	"testing"

	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/orgsql"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

func TestJobStoreContract(t *testing.T) {
	for _, db := range []struct {
		name string
		open func(t testing.TB) testdb.DB
	}{{"sqlite", testdb.SQLite}, {"postgres", testdb.Postgres}} {
		t.Run(db.name, func(t *testing.T) {
			routingtest.JobStoreContract(t, func(t *testing.T) interface {
				routing.TrainingJobStore
				routing.TrainingJobSweeper
			} {
				return orgsql.New(db.open(t).DB, nil)
			})
		})
	}
}

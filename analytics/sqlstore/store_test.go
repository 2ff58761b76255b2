package sqlstore_test

import (
	"testing"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	"github.com/heddle-gw/heddle/analytics/sqlstore"
	"github.com/heddle-gw/heddle/internal/testdb"
)

func contract(open func(t testing.TB) testdb.DB) analyticstest.NewStoreFunc {
	return func(t *testing.T) (analytics.Store, analytics.Reader) {
		s := sqlstore.New(open(t).DB)
		return s, s
	}
}

func TestContractSQLite(t *testing.T) { analyticstest.RunContract(t, contract(testdb.SQLite)) }

func TestContractPostgres(t *testing.T) { analyticstest.RunContract(t, contract(testdb.Postgres)) }

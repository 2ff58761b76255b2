package sqlstore_test

import (
	"testing"

	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/sqlstore"
	"github.com/heddle-gw/heddle/tenancy/tenancytest"
)

func TestStoreContract(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		tenancytest.StoreSuite(t, func(t *testing.T) tenancy.Store { return sqlstore.New(testdb.SQLite(t).DB) })
	})
	t.Run("postgres", func(t *testing.T) {
		tenancytest.StoreSuite(t, func(t *testing.T) tenancy.Store { return sqlstore.New(testdb.Postgres(t).DB) })
	})
}

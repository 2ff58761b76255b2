package sqlstore_test

import (
	"testing"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	"github.com/heddle-gw/heddle/analytics/sqlstore"
)

func contract(open func(t *testing.T) *gorm.DB) analyticstest.NewStoreFunc {
	return func(t *testing.T) (analytics.Store, analytics.Reader) {
		s := sqlstore.New(open(t))
		return s, s
	}
}

func TestContractSQLite(t *testing.T) { analyticstest.RunContract(t, contract(openSQLite)) }

func TestContractPostgres(t *testing.T) { analyticstest.RunContract(t, contract(openPostgres)) }

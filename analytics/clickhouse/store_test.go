package clickhouse_test

import (
	"testing"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
)

func TestContractClickHouse(t *testing.T) {
	analyticstest.RunContract(t, func(t *testing.T) (analytics.Store, analytics.Reader) {
		s := openFresh(t)
		return s, s
	})
}

package analyticstest_test

import (
	"testing"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
)

func TestContractInMemory(t *testing.T) {
	analyticstest.RunContract(t, func(t *testing.T) (analytics.Store, analytics.Reader) {
		s := analyticstest.NewStore()
		return s, s
	})
}

package billingtest_test

import (
	"testing"

	"github.com/heddle-gw/heddle/billing/billingtest"
)

func TestMemoryStore(t *testing.T) {
	billingtest.StoreSuite(t, func(t *testing.T) billingtest.Store { return billingtest.NewMemory(nil) })
}

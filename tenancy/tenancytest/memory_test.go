package tenancytest

import (
	"testing"

	"github.com/heddle-gw/heddle/tenancy"
)

func TestMemoryStore(t *testing.T) {
	StoreSuite(t, func(*testing.T) tenancy.Store { return NewMemory() })
}

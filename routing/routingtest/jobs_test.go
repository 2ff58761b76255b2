package routingtest_test

import (
	"testing"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

// The in-memory fake behaves as the real stores do.
func TestMemoryJobStoreContract(t *testing.T) {
	routingtest.JobStoreContract(t, func(*testing.T) interface {
		routing.TrainingJobStore
		routing.TrainingJobSweeper
	} {
		return routingtest.NewJobStore()
	})
}

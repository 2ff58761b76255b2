package app

import (
	"github.com/heddle-gw/heddle/routing/offline"
)

// newTraining builds the replica's bundle training queue over the app
// database's job and bundle tables; serveCommand runs it. Jobs train with
// the embedder organisation bundles route with (HEDDLE_EMBEDDER).
func newTraining(c *components) *offline.Jobs {
	return offline.NewJobs(c.orgRouting, c.orgRouting, offline.JobsConfig{
		Workers: c.cfg.TrainingWorkers, Timeout: c.cfg.TrainingTimeout, Embedder: c.orgEmbedder,
	}, c.logger.With("component", "training"))
}

package app

import (
	"context"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/offline"
)

// newTraining builds the replica's bundle training queue over the app
// database's job and bundle tables; serveCommand runs it. Jobs train with
// the embedder organisation bundles route with (HEDDLE_EMBEDDER).
func newTraining(c *components) *offline.Jobs {
	return offline.NewJobs(c.orgRouting, c.orgRouting, offline.JobsConfig{
		Workers: c.cfg.TrainingWorkers, Timeout: c.cfg.TrainingTimeout, Embedder: c.trainEmbedder,
	}, c.logger.With("component", "training"))
}

// trainingEmbedder is the embedder training jobs use for spec, given routed,
// the instance organisation bundles route with (nil: lexical-v1, built into
// each job). An inline embedder (plain CPU work on the caller's goroutine)
// is shared. Any other (hugot's pipeline serialises its calls) gets a second
// instance of the same spec, so a large upload's training never queues live
// routing decisions behind it past their embedding timeout.
func trainingEmbedder(ctx context.Context, spec string, routed routing.Embedder) (routing.Embedder, error) {
	if routed == nil {
		return nil, nil
	}
	if in, ok := routed.(routing.Inline); ok && in.InlineEmbed() {
		return routed, nil
	}
	return openEmbedderSpec(ctx, spec)
}

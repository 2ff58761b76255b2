package offline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/routing"
)

// JobsConfig bounds and tunes Jobs. Zero values take the defaults named
// beside the fields.
type JobsConfig struct {
	// Workers is how many trainings this replica runs at once (1). Each
	// runs on one core: keep it below the core count.
	Workers int
	// Timeout is a job's deadline from its start (15 minutes); a job past
	// it fails with routing.JobCodeTimeout.
	Timeout time.Duration
	// MaxQueuedPerOrg is how many jobs one organisation may have waiting on
	// this replica beside its running one (2); MaxQueued bounds the
	// replica's waiting jobs of all organisations (32). Over either,
	// Submit returns routing.ErrTrainingQueueFull.
	MaxQueuedPerOrg int
	MaxQueued       int
	// Heartbeat is how often the replica writes its jobs' progress and
	// learns of cancellations made on other replicas (2 s); a job whose
	// heartbeat is older than StaleAfter (1 minute) was interrupted, and
	// any replica marks it so.
	Heartbeat  time.Duration
	StaleAfter time.Duration
	// Now is the clock (time.Now).
	Now func() time.Time
	// Embedder, when set, is what every job trains with (the gateway's
	// HEDDLE_EMBEDDER, OrgData.WithEmbedder), so its bundles route with
	// the embedder the replicas load; nil trains lexical-v1.
	Embedder routing.Embedder
}

func (c *JobsConfig) defaults() {
	if c.Workers <= 0 {
		c.Workers = 1
	}
	if c.Timeout <= 0 {
		c.Timeout = 15 * time.Minute
	}
	if c.MaxQueuedPerOrg <= 0 {
		c.MaxQueuedPerOrg = 2
	}
	if c.MaxQueued <= 0 {
		c.MaxQueued = 32
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = 2 * time.Second
	}
	if c.StaleAfter <= 0 {
		c.StaleAfter = time.Minute
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// errCancelled is the cause of a running job's context when an admin
// cancelled it.
var errCancelled = errors.New("offline: training job cancelled")

// Jobs trains organisations' bundles in the background: jobs wait in one
// queue per organisation, at most Workers run at once on this replica, at
// most one per organisation, and the next job is taken from the
// organisations in turn (round robin), so one organisation's uploads never
// hold back another's for more than one training. A job's state lives in
// the store, so every replica shows it and can cancel it; the worker runs on
// the replica that accepted the upload (its data stays in memory there).
// Safe for concurrent use; Run must be running for jobs to start.
type Jobs struct {
	store   routing.TrainingJobStore
	bundles routing.OrgBundleStore
	cfg     JobsConfig
	log     *slog.Logger

	mu      sync.Mutex
	queues  map[string][]*pending // per organisation, oldest first
	ring    []string              // organisations with queued jobs, next turn first
	running map[string]*pending   // per organisation
	queued  int
	wake    chan struct{}
}

// pending is a job of this replica, queued or running.
type pending struct {
	job  routing.TrainingJob // guarded by Jobs.mu
	data *OrgData
	// ctx and cancel are the job's own context, set when it starts.
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// NewJobs returns a job queue over store that stores trained bundles in
// bundles. logger nil discards.
func NewJobs(store routing.TrainingJobStore, bundles routing.OrgBundleStore, cfg JobsConfig, logger *slog.Logger) *Jobs {
	cfg.defaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Jobs{store: store, bundles: bundles, cfg: cfg, log: logger,
		queues: map[string][]*pending{}, running: map[string]*pending{}, wake: make(chan struct{}, 1)}
}

// Submit queues the training of data for orgID, asked by userID through via
// ("api", "console"), and returns the queued job at once. It returns
// routing.ErrTrainingQueueFull when orgID or this replica has as many jobs
// waiting as it may.
func (j *Jobs) Submit(ctx context.Context, orgID, userID, via string, data *OrgData) (routing.TrainingJob, error) {
	if orgID == "" || data == nil || data.orgID != orgID {
		return routing.TrainingJob{}, fmt.Errorf("%w: job data of another organisation", routing.ErrUsage)
	}
	now := j.now()
	job := routing.TrainingJob{ID: newJobID(), OrgID: orgID, UserID: userID, Status: routing.JobQueued, Stage: routing.StageQueued,
		Samples: data.Samples(), Via: via, CreatedAt: now, Heartbeat: now}
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.queues[orgID]) >= j.cfg.MaxQueuedPerOrg || j.queued >= j.cfg.MaxQueued {
		return routing.TrainingJob{}, routing.ErrTrainingQueueFull
	}
	// Stored under the lock, so a worker never starts a job the store lacks.
	if err := j.store.CreateJob(ctx, job); err != nil {
		return routing.TrainingJob{}, err
	}
	if len(j.queues[orgID]) == 0 {
		j.ring = append(j.ring, orgID)
	}
	j.queues[orgID] = append(j.queues[orgID], &pending{job: job, data: data})
	j.queued++
	j.signal()
	return job, nil
}

// Get returns orgID's job id (routing.ErrJobNotFound for another
// organisation's).
func (j *Jobs) Get(ctx context.Context, orgID, id string) (routing.TrainingJob, error) {
	return j.store.GetJob(ctx, orgID, id)
}

// List returns orgID's latest limit jobs, newest first.
func (j *Jobs) List(ctx context.Context, orgID string, limit int) ([]routing.TrainingJob, error) {
	return j.store.ListJobs(ctx, orgID, limit)
}

// Cancel cancels orgID's job id, queued or running, on whichever replica
// holds it (at once here, within a heartbeat elsewhere), and returns it
// cancelled. A job that already ended is routing.ErrJobFinished.
func (j *Jobs) Cancel(ctx context.Context, orgID, id, userID string) (routing.TrainingJob, error) {
	job, err := j.store.GetJob(ctx, orgID, id)
	if err != nil {
		return routing.TrainingJob{}, err
	}
	if !job.Status.Active() {
		return job, routing.ErrJobFinished
	}
	now := j.now()
	job.Status, job.Error, job.FinishedAt, job.Heartbeat = routing.JobCancelled, "cancelled by "+userID, &now, now
	ok, err := j.store.UpdateJob(ctx, job, routing.JobQueued, routing.JobRunning)
	if err != nil {
		return routing.TrainingJob{}, err
	}
	if !ok {
		if job, err = j.store.GetJob(ctx, orgID, id); err != nil {
			return routing.TrainingJob{}, err
		}
		return job, routing.ErrJobFinished
	}
	j.mu.Lock()
	j.dropLocked(orgID, id)
	if p := j.running[orgID]; p != nil && p.job.ID == id && p.cancel != nil {
		p.cancel(errCancelled)
	}
	j.mu.Unlock()
	j.log.InfoContext(ctx, "routing training cancelled", "org_id", orgID, "job_id", id, "user_id", userID)
	return job, nil
}

// dropLocked removes orgID's queued job id, if this replica holds it.
func (j *Jobs) dropLocked(orgID, id string) {
	q := j.queues[orgID]
	for i, p := range q {
		if p.job.ID == id {
			j.queues[orgID] = append(q[:i:i], q[i+1:]...)
			j.queued--
			break
		}
	}
	if len(j.queues[orgID]) == 0 {
		delete(j.queues, orgID)
		for i, o := range j.ring {
			if o == orgID {
				j.ring = append(j.ring[:i:i], j.ring[i+1:]...)
				break
			}
		}
	}
}

func (j *Jobs) signal() {
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

func (j *Jobs) now() time.Time { return j.cfg.Now().UTC().Truncate(time.Millisecond) }

func newJobID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "tj_" + hex.EncodeToString(b[:])
}

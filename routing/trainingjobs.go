package routing

import (
	"context"
	"errors"
	"time"
)

// JobStatus is where a training job is in its life.
type JobStatus string

// Job statuses. A job is created queued, runs, and ends done, failed or
// cancelled; an ended job never changes again.
const (
	JobQueued    JobStatus = "queued"
	JobRunning   JobStatus = "running"
	JobDone      JobStatus = "done"
	JobFailed    JobStatus = "failed"
	JobCancelled JobStatus = "cancelled"
)

// Active reports whether a job in status s may still change.
func (s JobStatus) Active() bool { return s == JobQueued || s == JobRunning }

// Training job stages, in the order a job passes them.
const (
	StageQueued     = "queued"
	StageEmbedding  = "embedding"
	StageClustering = "clustering"
	StageStoring    = "storing"
	StageDone       = "done"
)

// JobInterrupted is the error of a job whose replica stopped while it was
// queued or running.
const JobInterrupted = "interrupted"

// Error codes a failed job carries (ErrorCode), beside the message.
const (
	JobCodeTimeout     = "routing.training_timeout"
	JobCodeInterrupted = "routing.training_interrupted"
	JobCodeFailed      = "routing.training_failed"
)

// TrainingJob is one bundle training of an organisation, as every replica
// sees it in the app database.
type TrainingJob struct {
	ID     string    `json:"id"`
	OrgID  string    `json:"org_id"`
	UserID string    `json:"user_id"`
	Status JobStatus `json:"status"`
	// Stage and Percent are the progress of a running job (StageEmbedding,
	// StageClustering, StageStoring); Percent is 100 when done.
	Stage   string `json:"stage"`
	Percent int    `json:"percent"`
	// Samples is the number of uploaded samples the job trains on.
	Samples int `json:"samples"`
	// Error and ErrorCode say why a job failed (JobCode...) or was cancelled.
	Error     string `json:"error,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
	// BundleID names the stored bundle once the job is done; Summary
	// describes it.
	BundleID   string        `json:"bundle_id,omitempty"`
	Summary    *TrainSummary `json:"summary,omitempty"`
	Via        string        `json:"via"`
	CreatedAt  time.Time     `json:"created_at"`
	StartedAt  *time.Time    `json:"started_at,omitempty"`
	FinishedAt *time.Time    `json:"finished_at,omitempty"`
	// Heartbeat is when the replica running or queueing the job last said
	// it is alive; a job whose heartbeat is too old was interrupted.
	Heartbeat time.Time `json:"-"`
}

// Errors of training jobs.
var (
	// ErrJobNotFound means the organisation has no such job (also when
	// another organisation has one).
	ErrJobNotFound = errors.New("routing: training job not found")
	// ErrJobFinished means a cancelled job had already ended.
	ErrJobFinished = errors.New("routing: training job already finished")
	// ErrTrainingQueueFull means the organisation (or the replica) has as
	// many queued jobs as it may; retry when one finished.
	ErrTrainingQueueFull = errors.New("routing: too many training jobs queued")
)

// TrainingJobStore keeps training jobs where every replica sees them.
// Implementations are safe for concurrent use and scope every read by
// orgID. Every call blocks on the store.
type TrainingJobStore interface {
	// CreateJob stores a new job.
	CreateJob(ctx context.Context, j TrainingJob) error
	// GetJob returns orgID's job id, or an error wrapping ErrJobNotFound.
	GetJob(ctx context.Context, orgID, id string) (TrainingJob, error)
	// ListJobs returns orgID's latest limit jobs, newest first.
	ListJobs(ctx context.Context, orgID string, limit int) ([]TrainingJob, error)
	// UpdateJob writes j's status, progress, outcome, times and heartbeat
	// over the stored job of j.OrgID and j.ID, only while its stored status
	// is one of from. It reports whether it wrote (false: the job is gone or
	// moved on, e.g. another replica cancelled it).
	UpdateJob(ctx context.Context, j TrainingJob, from ...JobStatus) (bool, error)
}

// TrainingJobSweeper is the optional ability of a TrainingJobStore to end
// jobs nobody runs any more.
type TrainingJobSweeper interface {
	// InterruptStale marks every queued or running job whose heartbeat is
	// before cutoff failed with JobInterrupted (JobCodeInterrupted),
	// finished at now, and returns how many it marked.
	InterruptStale(ctx context.Context, cutoff, now time.Time) (int, error)
}

package routingtest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/routing"
)

// JobStore is an in-memory routing.TrainingJobStore and
// routing.TrainingJobSweeper, scoped by organisation like the real one.
// Safe for concurrent use.
type JobStore struct {
	mu   sync.Mutex
	jobs []routing.TrainingJob // in creation order
}

var (
	_ routing.TrainingJobStore   = (*JobStore)(nil)
	_ routing.TrainingJobSweeper = (*JobStore)(nil)
)

// NewJobStore returns an empty store.
func NewJobStore() *JobStore { return &JobStore{} }

// CreateJob stores j; an id already stored is an error.
func (s *JobStore) CreateJob(_ context.Context, j routing.TrainingJob) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j.ID == "" || j.OrgID == "" {
		return fmt.Errorf("routingtest: job id and organisation are required")
	}
	for _, have := range s.jobs {
		if have.ID == j.ID {
			return fmt.Errorf("routingtest: job %s exists", j.ID)
		}
	}
	s.jobs = append(s.jobs, j)
	return nil
}

// GetJob returns orgID's job id.
func (s *JobStore) GetJob(_ context.Context, orgID, id string) (routing.TrainingJob, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range s.jobs {
		if j.ID == id && j.OrgID == orgID {
			return j, nil
		}
	}
	return routing.TrainingJob{}, fmt.Errorf("routingtest: job %s: %w", id, routing.ErrJobNotFound)
}

// ListJobs returns orgID's latest limit jobs, newest first.
func (s *JobStore) ListJobs(_ context.Context, orgID string, limit int) ([]routing.TrainingJob, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []routing.TrainingJob
	for i := len(s.jobs) - 1; i >= 0 && len(out) < limit; i-- {
		if s.jobs[i].OrgID == orgID {
			out = append(out, s.jobs[i])
		}
	}
	return out, nil
}

// UpdateJob writes j's mutable fields while the stored status is in from.
func (s *JobStore) UpdateJob(_ context.Context, j routing.TrainingJob, from ...routing.JobStatus) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, have := range s.jobs {
		if have.ID != j.ID || have.OrgID != j.OrgID || !slices.Contains(from, have.Status) {
			continue
		}
		have.Status, have.Stage, have.Percent, have.Error, have.ErrorCode = j.Status, j.Stage, j.Percent, j.Error, j.ErrorCode
		have.BundleID, have.Summary, have.StartedAt, have.FinishedAt, have.Heartbeat = j.BundleID, j.Summary, j.StartedAt, j.FinishedAt, j.Heartbeat
		s.jobs[i] = have
		return true, nil
	}
	return false, nil
}

// InterruptStale fails the active jobs whose heartbeat is before cutoff.
func (s *JobStore) InterruptStale(_ context.Context, cutoff, now time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i, j := range s.jobs {
		if j.Status.Active() && j.Heartbeat.Before(cutoff) {
			j.Status, j.Error, j.ErrorCode, j.FinishedAt = routing.JobFailed, routing.JobInterrupted, routing.JobCodeInterrupted, &now
			s.jobs[i] = j
			n++
		}
	}
	return n, nil
}

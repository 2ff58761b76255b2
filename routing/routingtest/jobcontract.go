package routingtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/routing"
)

// OpenJobStore opens a fresh, empty training job store.
type OpenJobStore func(t *testing.T) interface {
	routing.TrainingJobStore
	routing.TrainingJobSweeper
}

// JobStoreContract runs the behaviour every routing.TrainingJobStore (with
// its sweeper) must show: round trip of every field, isolation by
// organisation, newest-first listing with a limit, conditional updates, and
// the stale sweep.
func JobStoreContract(t *testing.T, open OpenJobStore) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	job := func(org, id string, at time.Time) routing.TrainingJob {
		return routing.TrainingJob{ID: id, OrgID: org, UserID: "usr_1", Status: routing.JobQueued, Stage: routing.StageQueued,
			Samples: 120, Via: "api", CreatedAt: at, Heartbeat: at}
	}

	t.Run("round trip, progress and outcome", func(t *testing.T) {
		s := open(t)
		j := job("org_a", "tj_1", t0)
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		mustJob(t, s, j)
		started := t0.Add(time.Second)
		j.Status, j.Stage, j.Percent, j.StartedAt, j.Heartbeat = routing.JobRunning, routing.StageClustering, 57, &started, started
		mustUpdate(t, s, j, true, routing.JobQueued)
		mustJob(t, s, j)
		done := t0.Add(time.Minute)
		j.Status, j.Stage, j.Percent, j.FinishedAt, j.BundleID = routing.JobDone, routing.StageDone, 100, &done, "org-0123"
		j.Summary = &routing.TrainSummary{Samples: 120, K: 4, Seed: 1, Inertia: 0.5, ClusterSizes: []int{30, 30, 30, 30},
			Models: []routing.ModelSummary{{Model: "gpt-5", Quality: 0.9, Cost: 0.01, N: 120}}}
		mustUpdate(t, s, j, true, routing.JobRunning)
		mustJob(t, s, j)
		failed := j
		failed.Status, failed.Error, failed.ErrorCode = routing.JobFailed, "x", routing.JobCodeFailed
		mustUpdate(t, s, failed, false, routing.JobQueued, routing.JobRunning)
		mustJob(t, s, j)
	})

	t.Run("isolation by organisation", func(t *testing.T) {
		s := open(t)
		j := job("org_a", "tj_2", t0)
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetJob(ctx, "org_b", "tj_2"); !errors.Is(err, routing.ErrJobNotFound) {
			t.Fatalf("org_b reads org_a's job: %v", err)
		}
		if got, err := s.ListJobs(ctx, "org_b", 10); err != nil || len(got) != 0 {
			t.Fatalf("org_b lists %v, %v", got, err)
		}
		other := j
		other.OrgID, other.Status = "org_b", routing.JobCancelled
		mustUpdate(t, s, other, false, routing.JobQueued)
		mustJob(t, s, j)
		if _, err := s.GetJob(ctx, "org_a", "tj_missing"); !errors.Is(err, routing.ErrJobNotFound) {
			t.Fatalf("missing job: %v", err)
		}
	})

	t.Run("list newest first with a limit", func(t *testing.T) {
		s := open(t)
		for i := range 4 {
			if err := s.CreateJob(ctx, job("org_a", fmt.Sprintf("tj_l%d", i), t0.Add(time.Duration(i)*time.Second))); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.CreateJob(ctx, job("org_b", "tj_lb", t0.Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
		got, err := s.ListJobs(ctx, "org_a", 3)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, j := range got {
			ids = append(ids, j.ID)
		}
		if !reflect.DeepEqual(ids, []string{"tj_l3", "tj_l2", "tj_l1"}) {
			t.Fatalf("list = %v, want tj_l3 tj_l2 tj_l1", ids)
		}
	})

	t.Run("stale sweep", func(t *testing.T) {
		s := open(t)
		stale, fresh, ended := job("org_a", "tj_s1", t0), job("org_a", "tj_s2", t0.Add(time.Minute)), job("org_b", "tj_s3", t0)
		ended.Status = routing.JobDone
		for _, j := range []routing.TrainingJob{stale, fresh, ended} {
			if err := s.CreateJob(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
		now := t0.Add(2 * time.Minute)
		n, err := s.InterruptStale(ctx, t0.Add(30*time.Second), now)
		if err != nil || n != 1 {
			t.Fatalf("InterruptStale = %d, %v; want 1", n, err)
		}
		stale.Status, stale.Error, stale.ErrorCode, stale.FinishedAt = routing.JobFailed, routing.JobInterrupted, routing.JobCodeInterrupted, &now
		mustJob(t, s, stale)
		mustJob(t, s, fresh)
		mustJob(t, s, ended)
	})
}

func mustUpdate(t *testing.T, s routing.TrainingJobStore, j routing.TrainingJob, want bool, from ...routing.JobStatus) {
	t.Helper()
	ok, err := s.UpdateJob(context.Background(), j, from...)
	if err != nil || ok != want {
		t.Fatalf("UpdateJob(%s from %v) = %v, %v; want %v", j.Status, from, ok, err, want)
	}
}

func mustJob(t *testing.T, s routing.TrainingJobStore, want routing.TrainingJob) {
	t.Helper()
	got, err := s.GetJob(context.Background(), want.OrgID, want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !sameTimes(got.StartedAt, want.StartedAt) || !sameTimes(got.FinishedAt, want.FinishedAt) ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.Heartbeat.Equal(want.Heartbeat) {
		t.Fatalf("job times = %+v, want %+v", got, want)
	}
	got.StartedAt, got.FinishedAt, want.StartedAt, want.FinishedAt = nil, nil, nil, nil
	got.CreatedAt, got.Heartbeat, want.CreatedAt, want.Heartbeat = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("job = %+v, want %+v", got, want)
	}
}

func sameTimes(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

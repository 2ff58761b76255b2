package offline_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/offline"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

// hang bounds every wait of these tests; a loaded machine only makes the
// waits longer.
const hang = time.Minute

// gatedBundles is an OrgBundleStore whose PutBundle waits for a release (or
// its context) when gated, recording the organisations in call order.
type gatedBundles struct {
	mu      sync.Mutex
	gated   bool
	release chan struct{}
	calls   []string // organisations, in PutBundle call order
	stored  []string // bundle ids stored
	bundles []*routing.Bundle
	waiting int
}

func newGated(gated bool) *gatedBundles {
	return &gatedBundles{gated: gated, release: make(chan struct{})}
}

func (g *gatedBundles) PutBundle(ctx context.Context, orgID string, b *routing.Bundle) (routing.BundleInfo, error) {
	g.mu.Lock()
	g.calls = append(g.calls, orgID)
	gated := g.gated
	if gated {
		g.waiting++
	}
	g.mu.Unlock()
	if gated {
		select {
		case <-g.release:
		case <-ctx.Done():
			g.mu.Lock()
			g.waiting--
			g.mu.Unlock()
			return routing.BundleInfo{}, ctx.Err()
		}
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stored = append(g.stored, b.ID)
	g.bundles = append(g.bundles, b)
	return routing.InfoOf(orgID, b, time.Now()), nil
}

func (g *gatedBundles) GetBundle(context.Context, string, string) (*routing.Bundle, error) {
	return nil, routing.ErrBundleNotFound
}

func (g *gatedBundles) ListBundles(context.Context, string) ([]routing.BundleInfo, error) {
	return nil, nil
}

// last is the bundle stored last (nil for none).
func (g *gatedBundles) last() *routing.Bundle {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.bundles) == 0 {
		return nil
	}
	return g.bundles[len(g.bundles)-1]
}

func (g *gatedBundles) snapshot() (calls, stored []string, waiting int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.calls), slices.Clone(g.stored), g.waiting
}

func orgData(t *testing.T, org string, n int) *offline.OrgData {
	t.Helper()
	d, err := offline.ParseOrgData(org, bytes.NewReader(routingtest.OrgEvalJSONL(n)), orgCfg())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// start runs j until the test ends and waits for Run to return.
func start(t *testing.T, j *offline.Jobs) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { j.Run(ctx); close(done) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

func submit(t *testing.T, j *offline.Jobs, org string) routing.TrainingJob {
	t.Helper()
	job, err := j.Submit(context.Background(), org, "usr_"+org, "api", orgData(t, org, 60))
	if err != nil {
		t.Fatal(err)
	}
	if job.Status != routing.JobQueued || job.Stage != routing.StageQueued || job.Samples != 60 || job.OrgID != org {
		t.Fatalf("submitted job %+v, want queued with 60 samples of %s", job, org)
	}
	return job
}

func status(t *testing.T, s routing.TrainingJobStore, job routing.TrainingJob) routing.TrainingJob {
	t.Helper()
	got, err := s.GetJob(context.Background(), job.OrgID, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func waitStatus(t *testing.T, s routing.TrainingJobStore, job routing.TrainingJob, want routing.JobStatus) routing.TrainingJob {
	t.Helper()
	var got routing.TrainingJob
	testwait.Until(t, hang, "job "+job.ID+" "+string(want), func() bool {
		got = status(t, s, job)
		return got.Status == want
	})
	return got
}

// With one worker, organisations take turns: A's second job waits for B's
// first, though A queued both first.
func TestJobsRoundRobin(t *testing.T) {
	store, bundles := routingtest.NewJobStore(), newGated(false)
	j := offline.NewJobs(store, bundles, offline.JobsConfig{Workers: 1, Heartbeat: 10 * time.Millisecond}, nil)
	a1, a2, b1 := submit(t, j, "org_a"), submit(t, j, "org_a"), submit(t, j, "org_b")
	start(t, j)
	for _, job := range []routing.TrainingJob{a1, a2, b1} {
		got := waitStatus(t, store, job, routing.JobDone)
		if got.Percent != 100 || got.Stage != routing.StageDone || got.BundleID == "" || got.Summary == nil ||
			got.Summary.Samples != 60 || got.StartedAt == nil || got.FinishedAt == nil || got.Error != "" {
			t.Errorf("done job %+v", got)
		}
	}
	if calls, stored, _ := bundles.snapshot(); !slices.Equal(calls, []string{"org_a", "org_b", "org_a"}) || len(stored) != 3 {
		t.Fatalf("trainings ran for %v (stored %d), want org_a, org_b, org_a", calls, len(stored))
	}
}

// The worker limit holds, and one organisation never runs two jobs at once:
// with two workers, A's second job waits while A's first and B's run.
func TestJobsLimitAndOnePerOrg(t *testing.T) {
	store, bundles := routingtest.NewJobStore(), newGated(true)
	j := offline.NewJobs(store, bundles, offline.JobsConfig{Workers: 2, Heartbeat: 10 * time.Millisecond}, nil)
	a1, a2, b1, c1 := submit(t, j, "org_a"), submit(t, j, "org_a"), submit(t, j, "org_b"), submit(t, j, "org_c")
	start(t, j)
	testwait.Until(t, hang, "two trainings storing", func() bool { _, _, w := bundles.snapshot(); return w == 2 })
	if calls, _, _ := bundles.snapshot(); !slices.Equal(calls, []string{"org_a", "org_b"}) && !slices.Equal(calls, []string{"org_b", "org_a"}) {
		t.Fatalf("running %v, want org_a and org_b", calls)
	}
	for _, job := range []routing.TrainingJob{a1, b1} {
		if got := status(t, store, job); got.Status != routing.JobRunning || got.Stage != routing.StageStoring || got.Percent != 95 {
			t.Errorf("running job %s: %s %s %d%%, want running storing 95%%", job.OrgID, got.Status, got.Stage, got.Percent)
		}
	}
	for _, job := range []routing.TrainingJob{a2, c1} {
		if got := status(t, store, job); got.Status != routing.JobQueued {
			t.Errorf("job of %s is %s while both workers are busy, want queued", job.OrgID, got.Status)
		}
	}
	close(bundles.release)
	for _, job := range []routing.TrainingJob{a1, a2, b1, c1} {
		waitStatus(t, store, job, routing.JobDone)
	}
	if calls, _, _ := bundles.snapshot(); calls[2] != "org_c" && calls[3] != "org_c" {
		t.Fatalf("order %v", calls)
	}
}

// Each organisation's queue and the replica's are bounded.
func TestJobsQueueFull(t *testing.T) {
	j := offline.NewJobs(routingtest.NewJobStore(), newGated(false), offline.JobsConfig{MaxQueuedPerOrg: 1, MaxQueued: 2}, nil)
	submit(t, j, "org_a")
	if _, err := j.Submit(context.Background(), "org_a", "usr", "api", orgData(t, "org_a", 60)); !errors.Is(err, routing.ErrTrainingQueueFull) {
		t.Fatalf("second job of org_a: %v, want ErrTrainingQueueFull", err)
	}
	submit(t, j, "org_b")
	if _, err := j.Submit(context.Background(), "org_c", "usr", "api", orgData(t, "org_c", 60)); !errors.Is(err, routing.ErrTrainingQueueFull) {
		t.Fatalf("third queued job of the replica: %v, want ErrTrainingQueueFull", err)
	}
	if _, err := j.Submit(context.Background(), "org_c", "usr", "api", orgData(t, "org_a", 60)); !errors.Is(err, routing.ErrUsage) {
		t.Fatalf("another organisation's data: %v, want ErrUsage", err)
	}
}

// A queued job cancelled never trains; a running one stops and stores no
// bundle; an ended job cannot be cancelled; another organisation cannot
// cancel it.
func TestJobsCancel(t *testing.T) {
	ctx := context.Background()
	store, bundles := routingtest.NewJobStore(), newGated(true)
	j := offline.NewJobs(store, bundles, offline.JobsConfig{Workers: 1, Heartbeat: 10 * time.Millisecond}, nil)
	a1, b1 := submit(t, j, "org_a"), submit(t, j, "org_b")
	if _, err := j.Cancel(ctx, "org_b", a1.ID, "usr_b"); !errors.Is(err, routing.ErrJobNotFound) {
		t.Fatalf("org_b cancels org_a's job: %v", err)
	}
	got, err := j.Cancel(ctx, "org_b", b1.ID, "usr_b")
	if err != nil || got.Status != routing.JobCancelled || got.FinishedAt == nil || got.Error != "cancelled by usr_b" {
		t.Fatalf("cancel queued: %+v, %v", got, err)
	}
	start(t, j)
	testwait.Until(t, hang, "org_a's training storing", func() bool { _, _, w := bundles.snapshot(); return w == 1 })
	if got, err := j.Cancel(ctx, "org_a", a1.ID, "usr_a"); err != nil || got.Status != routing.JobCancelled {
		t.Fatalf("cancel running: %+v, %v", got, err)
	}
	testwait.Until(t, hang, "the cancelled training to stop", func() bool { _, _, w := bundles.snapshot(); return w == 0 })
	a2 := submit(t, j, "org_a")
	close(bundles.release)
	waitStatus(t, store, a2, routing.JobDone)
	calls, stored, _ := bundles.snapshot()
	if !slices.Equal(calls, []string{"org_a", "org_a"}) || len(stored) != 1 {
		t.Fatalf("trainings %v, stored %v: the cancelled queued job trained or the cancelled running one stored", calls, stored)
	}
	for _, job := range []routing.TrainingJob{a1, b1} {
		if got := status(t, store, job); got.Status != routing.JobCancelled {
			t.Errorf("cancelled job %s ended %s", job.ID, got.Status)
		}
	}
	if _, err := j.Cancel(ctx, "org_a", a2.ID, "usr_a"); !errors.Is(err, routing.ErrJobFinished) {
		t.Fatalf("cancel a done job: %v, want ErrJobFinished", err)
	}
}

// A cancel made on another replica (another Jobs over the same store)
// reaches the running training through its heartbeat.
func TestJobsCancelFromAnotherReplica(t *testing.T) {
	store, bundles := routingtest.NewJobStore(), newGated(true)
	here := offline.NewJobs(store, bundles, offline.JobsConfig{Workers: 1, Heartbeat: 10 * time.Millisecond}, nil)
	there := offline.NewJobs(store, newGated(false), offline.JobsConfig{}, nil)
	a1 := submit(t, here, "org_a")
	start(t, here)
	testwait.Until(t, hang, "the training storing", func() bool { _, _, w := bundles.snapshot(); return w == 1 })
	if _, err := there.Cancel(context.Background(), "org_a", a1.ID, "usr_a"); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, hang, "the training to stop", func() bool { _, _, w := bundles.snapshot(); return w == 0 })
	if _, stored, _ := bundles.snapshot(); len(stored) != 0 {
		t.Fatalf("a cancelled training stored %v", stored)
	}
	if got := status(t, store, a1); got.Status != routing.JobCancelled {
		t.Fatalf("job %s, want cancelled", got.Status)
	}
}

// A job past its deadline fails with the timeout code, and the next one
// runs.
func TestJobsDeadline(t *testing.T) {
	store, bundles := routingtest.NewJobStore(), newGated(true)
	j := offline.NewJobs(store, bundles, offline.JobsConfig{Workers: 1, Timeout: 50 * time.Millisecond, Heartbeat: 10 * time.Millisecond}, nil)
	a1, b1 := submit(t, j, "org_a"), submit(t, j, "org_b")
	start(t, j)
	for _, job := range []routing.TrainingJob{a1, b1} {
		got := waitStatus(t, store, job, routing.JobFailed)
		if got.ErrorCode != routing.JobCodeTimeout || got.Error != "training took longer than 50ms" || got.FinishedAt == nil || got.BundleID != "" {
			t.Errorf("timed-out job %+v", got)
		}
	}
	if _, stored, _ := bundles.snapshot(); len(stored) != 0 {
		t.Fatalf("timed-out jobs stored %v", stored)
	}
}

// A replica's jobs end interrupted when it stops, and jobs a stopped replica
// left behind (no heartbeat for StaleAfter) are marked so by the next one.
func TestJobsInterrupted(t *testing.T) {
	store, bundles := routingtest.NewJobStore(), newGated(true)
	j := offline.NewJobs(store, bundles, offline.JobsConfig{Workers: 1, Heartbeat: 10 * time.Millisecond}, nil)
	a1, b1 := submit(t, j, "org_a"), submit(t, j, "org_b")
	stop := start(t, j)
	testwait.Until(t, hang, "a training storing", func() bool { _, _, w := bundles.snapshot(); return w == 1 })
	stop()
	for _, job := range []routing.TrainingJob{a1, b1} {
		if got := status(t, store, job); got.Status != routing.JobFailed || got.Error != routing.JobInterrupted || got.ErrorCode != routing.JobCodeInterrupted {
			t.Errorf("job of a stopped replica: %+v", got)
		}
	}

	// A job whose replica died without a word: its heartbeat is old.
	past := time.Now().Add(-time.Hour)
	old := offline.NewJobs(store, bundles, offline.JobsConfig{Now: func() time.Time { return past }}, nil)
	c1 := submit(t, old, "org_c")
	next := offline.NewJobs(store, newGated(false), offline.JobsConfig{StaleAfter: time.Minute}, nil)
	start(t, next)
	got := waitStatus(t, store, c1, routing.JobFailed)
	if got.Error != routing.JobInterrupted || got.ErrorCode != routing.JobCodeInterrupted {
		t.Fatalf("stale job %+v", got)
	}
}

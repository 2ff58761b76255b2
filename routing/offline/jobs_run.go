package offline

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/routing"
)

// Run starts queued jobs as workers free up, writes heartbeats and progress,
// picks up cancellations made on other replicas and marks stale jobs of
// stopped replicas interrupted, until ctx is done. Then it stops the running
// jobs, marks them and the queued ones failed (routing.JobInterrupted: their
// data was only in this replica's memory) and returns.
func (j *Jobs) Run(ctx context.Context) {
	j.sweep(ctx)
	tick := time.NewTicker(j.cfg.Heartbeat)
	defer tick.Stop()
	var wg sync.WaitGroup
	for {
		for p := j.next(ctx); p != nil; p = j.next(ctx) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j.train(ctx, p)
				j.mu.Lock()
				delete(j.running, p.job.OrgID)
				j.mu.Unlock()
				j.signal()
			}()
		}
		select {
		case <-ctx.Done():
			wg.Wait()
			j.interruptQueued()
			return
		case <-j.wake:
		case <-tick.C:
			j.heartbeat(ctx)
			j.sweep(ctx)
		}
	}
}

// next takes the next job to start, or nil when every worker is busy or no
// organisation without a running job has one queued. Organisations take
// turns: the one served goes to the back of the ring.
func (j *Jobs) next(ctx context.Context) *pending {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.running) >= j.cfg.Workers {
		return nil
	}
	for i, org := range j.ring {
		if j.running[org] != nil {
			continue
		}
		q := j.queues[org]
		p := q[0]
		j.queues[org] = q[1:]
		j.queued--
		j.ring = append(j.ring[:i:i], j.ring[i+1:]...)
		if len(j.queues[org]) > 0 {
			j.ring = append(j.ring, org)
		} else {
			delete(j.queues, org)
		}
		p.ctx, p.cancel = context.WithCancelCause(ctx)
		j.running[org] = p
		return p
	}
	return nil
}

// train runs p to its end and stores the outcome, unless the job was
// cancelled (the cancel already stored it).
func (j *Jobs) train(parent context.Context, p *pending) {
	jobCtx := p.ctx
	defer p.cancel(nil)
	ctx, stop := context.WithTimeout(jobCtx, j.cfg.Timeout)
	defer stop()
	store := context.WithoutCancel(parent)
	started := j.now()
	j.mu.Lock()
	p.job.Status, p.job.Stage, p.job.StartedAt, p.job.Heartbeat = routing.JobRunning, routing.StageEmbedding, &started, started
	job := p.job
	j.mu.Unlock()
	if ok, err := j.store.UpdateJob(store, job, routing.JobQueued); err != nil || !ok {
		if err != nil {
			j.log.WarnContext(parent, "routing training not started", "org_id", job.OrgID, "job_id", job.ID, "err", err)
		}
		return // cancelled before it started, or the store refused
	}
	j.log.InfoContext(parent, "routing training started", "org_id", job.OrgID, "job_id", job.ID, "samples", job.Samples, "via", job.Via)
	b, err := p.data.WithEmbedder(j.cfg.Embedder).Train(ctx, func(stage string, percent int) {
		j.mu.Lock()
		p.job.Stage, p.job.Percent = stage, percent
		j.mu.Unlock()
	})
	var info routing.BundleInfo
	if err == nil {
		j.progress(p, routing.StageStoring, trainShare)
		info, err = j.bundles.PutBundle(ctx, job.OrgID, b)
	}
	ended := j.now()
	j.mu.Lock()
	p.job.FinishedAt, p.job.Heartbeat = &ended, ended
	switch {
	case err == nil:
		s := routing.SummaryOf(b)
		p.job.Status, p.job.Stage, p.job.Percent, p.job.BundleID, p.job.Summary = routing.JobDone, routing.StageDone, 100, info.ID, &s
	case errors.Is(context.Cause(jobCtx), errCancelled):
		j.mu.Unlock()
		return
	case parent.Err() != nil:
		p.job.Status, p.job.Error, p.job.ErrorCode = routing.JobFailed, routing.JobInterrupted, routing.JobCodeInterrupted
	case errors.Is(err, context.DeadlineExceeded):
		p.job.Status, p.job.Error, p.job.ErrorCode = routing.JobFailed, "training took longer than "+j.cfg.Timeout.String(), routing.JobCodeTimeout
	default:
		p.job.Status, p.job.Error, p.job.ErrorCode = routing.JobFailed, err.Error(), routing.JobCodeFailed
	}
	job = p.job
	j.mu.Unlock()
	if _, werr := j.store.UpdateJob(store, job, routing.JobRunning); werr != nil {
		j.log.WarnContext(parent, "routing training outcome not stored", "org_id", job.OrgID, "job_id", job.ID, "err", werr)
	}
	j.log.InfoContext(parent, "routing training ended", "org_id", job.OrgID, "job_id", job.ID, "status", string(job.Status),
		"bundle_id", job.BundleID, "error_code", job.ErrorCode, "samples", job.Samples, "duration_ms", ended.Sub(started).Milliseconds())
}

// progress sets p's stage and percent and writes them at once.
func (j *Jobs) progress(p *pending, stage string, percent int) {
	j.mu.Lock()
	p.job.Stage, p.job.Percent, p.job.Heartbeat = stage, percent, j.now()
	job := p.job
	j.mu.Unlock()
	if ok, err := j.store.UpdateJob(context.WithoutCancel(p.ctx), job, routing.JobRunning); err == nil && !ok {
		p.cancel(errCancelled)
	}
}

// heartbeat writes every job of this replica with a fresh heartbeat (and the
// running ones' progress); a job the store no longer has active was
// cancelled on another replica, and stops here.
func (j *Jobs) heartbeat(ctx context.Context) {
	now := j.now()
	j.mu.Lock()
	var jobs []routing.TrainingJob
	for _, q := range j.queues {
		for _, p := range q {
			p.job.Heartbeat = now
			jobs = append(jobs, p.job)
		}
	}
	for _, p := range j.running {
		p.job.Heartbeat = now
		jobs = append(jobs, p.job)
	}
	j.mu.Unlock()
	for _, job := range jobs {
		ok, err := j.store.UpdateJob(ctx, job, job.Status)
		if err != nil || ok {
			continue
		}
		j.mu.Lock()
		if job.Status == routing.JobQueued {
			j.dropLocked(job.OrgID, job.ID)
		} else if p := j.running[job.OrgID]; p != nil && p.job.ID == job.ID {
			p.cancel(errCancelled)
		}
		j.mu.Unlock()
	}
}

// sweep marks jobs whose replica stopped heartbeating interrupted.
func (j *Jobs) sweep(ctx context.Context) {
	sw, ok := j.store.(routing.TrainingJobSweeper)
	if !ok {
		return
	}
	now := j.now()
	n, err := sw.InterruptStale(ctx, now.Add(-j.cfg.StaleAfter), now)
	if err != nil {
		j.log.WarnContext(ctx, "routing training sweep", "err", err)
	} else if n > 0 {
		j.log.InfoContext(ctx, "routing trainings interrupted", "jobs", n)
	}
}

// interruptQueued marks the jobs still queued at shutdown failed: their data
// dies with this process.
func (j *Jobs) interruptQueued() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	now := j.now()
	j.mu.Lock()
	var jobs []routing.TrainingJob
	for org, q := range j.queues {
		for _, p := range q {
			p.job.Status, p.job.Error, p.job.ErrorCode, p.job.FinishedAt, p.job.Heartbeat = routing.JobFailed, routing.JobInterrupted, routing.JobCodeInterrupted, &now, now
			jobs = append(jobs, p.job)
		}
		delete(j.queues, org)
	}
	j.ring, j.queued = nil, 0
	j.mu.Unlock()
	for _, job := range jobs {
		if _, err := j.store.UpdateJob(ctx, job, routing.JobQueued); err != nil {
			j.log.Warn("routing training not marked interrupted", "org_id", job.OrgID, "job_id", job.ID, "err", err)
		}
	}
}

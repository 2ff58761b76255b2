package orgsql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/routing"
)

var (
	_ routing.TrainingJobStore   = (*Store)(nil)
	_ routing.TrainingJobSweeper = (*Store)(nil)
)

// jobRow is one routing_training_jobs row.
type jobRow struct {
	ID         string     `gorm:"column:id;primaryKey"`
	OrgID      string     `gorm:"column:org_id"`
	UserID     string     `gorm:"column:user_id"`
	Status     string     `gorm:"column:status"`
	Stage      string     `gorm:"column:stage"`
	Percent    int        `gorm:"column:percent"`
	Samples    int        `gorm:"column:samples"`
	Error      string     `gorm:"column:error"`
	ErrorCode  string     `gorm:"column:error_code"`
	BundleID   string     `gorm:"column:bundle_id"`
	Summary    string     `gorm:"column:summary"`
	Via        string     `gorm:"column:via"`
	CreatedAt  time.Time  `gorm:"column:created_at;autoCreateTime:false"`
	StartedAt  *time.Time `gorm:"column:started_at"`
	FinishedAt *time.Time `gorm:"column:finished_at"`
	Heartbeat  time.Time  `gorm:"column:heartbeat_at"`
}

func (jobRow) TableName() string { return "routing_training_jobs" }

func toJobRow(j routing.TrainingJob) (jobRow, error) {
	r := jobRow{ID: j.ID, OrgID: j.OrgID, UserID: j.UserID, Status: string(j.Status), Stage: j.Stage, Percent: j.Percent,
		Samples: j.Samples, Error: j.Error, ErrorCode: j.ErrorCode, BundleID: j.BundleID, Via: j.Via,
		CreatedAt: j.CreatedAt.UTC(), StartedAt: utcPtr(j.StartedAt), FinishedAt: utcPtr(j.FinishedAt), Heartbeat: j.Heartbeat.UTC()}
	if j.Summary != nil {
		b, err := json.Marshal(j.Summary)
		if err != nil {
			return r, fmt.Errorf("orgsql: encode job summary: %w", err)
		}
		r.Summary = string(b)
	}
	return r, nil
}

func (r jobRow) job() (routing.TrainingJob, error) {
	j := routing.TrainingJob{ID: r.ID, OrgID: r.OrgID, UserID: r.UserID, Status: routing.JobStatus(r.Status), Stage: r.Stage,
		Percent: r.Percent, Samples: r.Samples, Error: r.Error, ErrorCode: r.ErrorCode, BundleID: r.BundleID, Via: r.Via,
		CreatedAt: r.CreatedAt.UTC(), StartedAt: utcPtr(r.StartedAt), FinishedAt: utcPtr(r.FinishedAt), Heartbeat: r.Heartbeat.UTC()}
	if r.Summary != "" {
		j.Summary = &routing.TrainSummary{}
		if err := json.Unmarshal([]byte(r.Summary), j.Summary); err != nil {
			return j, fmt.Errorf("orgsql: job %s summary: %w", r.ID, err)
		}
	}
	return j, nil
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// CreateJob stores a new training job.
func (s *Store) CreateJob(ctx context.Context, j routing.TrainingJob) error {
	if j.ID == "" || j.OrgID == "" {
		return fmt.Errorf("orgsql: create job: id and organisation are required")
	}
	r, err := toJobRow(j)
	if err != nil {
		return err
	}
	if err := s.db.WithContext(ctx).Create(&r).Error; err != nil {
		return fmt.Errorf("orgsql: create job: %w", err)
	}
	return nil
}

// GetJob returns orgID's job id; another organisation's is
// routing.ErrJobNotFound.
func (s *Store) GetJob(ctx context.Context, orgID, id string) (routing.TrainingJob, error) {
	var r jobRow
	err := s.db.WithContext(ctx).Where("id = ? AND org_id = ?", id, orgID).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return routing.TrainingJob{}, fmt.Errorf("orgsql: job %s: %w", id, routing.ErrJobNotFound)
	}
	if err != nil {
		return routing.TrainingJob{}, fmt.Errorf("orgsql: get job: %w", err)
	}
	return r.job()
}

// ListJobs returns orgID's latest limit jobs, newest first.
func (s *Store) ListJobs(ctx context.Context, orgID string, limit int) ([]routing.TrainingJob, error) {
	var rows []jobRow
	if err := s.db.WithContext(ctx).Where("org_id = ?", orgID).Order("created_at DESC, id DESC").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("orgsql: list jobs: %w", err)
	}
	out := make([]routing.TrainingJob, 0, len(rows))
	for _, r := range rows {
		j, err := r.job()
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// UpdateJob writes j's mutable fields while the stored status is in from.
func (s *Store) UpdateJob(ctx context.Context, j routing.TrainingJob, from ...routing.JobStatus) (bool, error) {
	r, err := toJobRow(j)
	if err != nil {
		return false, err
	}
	statuses := make([]string, len(from))
	for i, f := range from {
		statuses[i] = string(f)
	}
	res := s.db.WithContext(ctx).Model(&jobRow{}).Where("id = ? AND org_id = ? AND status IN ?", j.ID, j.OrgID, statuses).
		Updates(map[string]any{"status": r.Status, "stage": r.Stage, "percent": r.Percent, "error": r.Error, "error_code": r.ErrorCode,
			"bundle_id": r.BundleID, "summary": r.Summary, "started_at": r.StartedAt, "finished_at": r.FinishedAt, "heartbeat_at": r.Heartbeat})
	if res.Error != nil {
		return false, fmt.Errorf("orgsql: update job: %w", res.Error)
	}
	return res.RowsAffected > 0, nil
}

// InterruptStale fails every queued or running job whose heartbeat is before
// cutoff (of any organisation: the sweep is the replicas' housekeeping).
func (s *Store) InterruptStale(ctx context.Context, cutoff, now time.Time) (int, error) {
	res := s.db.WithContext(ctx).Model(&jobRow{}).
		Where("status IN ? AND heartbeat_at < ?", []string{string(routing.JobQueued), string(routing.JobRunning)}, cutoff.UTC()).
		Updates(map[string]any{"status": string(routing.JobFailed), "error": routing.JobInterrupted,
			"error_code": routing.JobCodeInterrupted, "finished_at": now.UTC()})
	if res.Error != nil {
		return 0, fmt.Errorf("orgsql: interrupt stale jobs: %w", res.Error)
	}
	return int(res.RowsAffected), nil
}

package web

import (
	"bytes"
	"context"
	"errors"
	"mime"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/offline"
	"github.com/heddle-gw/heddle/tenancy"
)

// errUploadMediaType refuses an upload that is not JSONL.
var errUploadMediaType = errors.New("web: content type must be application/x-ndjson or application/jsonl")

// jobListLimit is how many of its latest training jobs an organisation sees.
const jobListLimit = 20

// TrainingJobs trains organisations' bundles in the background
// (offline.Jobs). Every call blocks on the job store only; none waits for a
// training.
type TrainingJobs interface {
	// Submit queues data's training for orgID and returns the queued job;
	// routing.ErrTrainingQueueFull when too many are waiting.
	Submit(ctx context.Context, orgID, userID, via string, data *offline.OrgData) (routing.TrainingJob, error)
	// Get returns orgID's job id (routing.ErrJobNotFound otherwise).
	Get(ctx context.Context, orgID, id string) (routing.TrainingJob, error)
	// List returns orgID's latest limit jobs, newest first.
	List(ctx context.Context, orgID string, limit int) ([]routing.TrainingJob, error)
	// Cancel cancels orgID's active job id for userID and returns it;
	// routing.ErrJobFinished when it already ended.
	Cancel(ctx context.Context, orgID, id, userID string) (routing.TrainingJob, error)
}

// uploadBundle handles POST /api/v1/routing/bundles (admins and owners): the
// body is JSONL evaluation data. It is checked at once (a bad line is 422
// naming it) and its training queued: 202 with the job, whose status
// GET /api/v1/routing/jobs/{id} shows. The trained bundle is stored, not
// activated (PUT bundle_id does that).
func (a *API) uploadBundle(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, true)
	if err != nil {
		return a.fail(c, err)
	}
	if mt, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType)); err != nil ||
		(mt != "application/x-ndjson" && mt != "application/jsonl") {
		return a.fail(c, errUploadMediaType)
	}
	job, err := a.submitTraining(c.UserContext(), act, c.Body(), "api")
	if err != nil {
		return a.fail(c, err)
	}
	c.Location("/api/v1/routing/jobs/" + job.ID)
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"job": job})
}

// submitTraining checks JSONL evaluation data for act's organisation and
// queues its training. body over MaxBundleBytes is errBodyTooLarge; data
// errors are *routing.FieldError naming the line. It never waits for the
// training. The API and the console both train through it.
func (a *API) submitTraining(ctx context.Context, act tenancy.Actor, body []byte, via string) (routing.TrainingJob, error) {
	if int64(len(body)) > a.d.MaxBundleBytes {
		return routing.TrainingJob{}, errBodyTooLarge
	}
	data, err := offline.ParseOrgData(act.OrgID, bytes.NewReader(body), offline.OrgTrainConfig{
		Known: a.d.KnownModel, MaxBytes: a.d.MaxBundleBytes,
	})
	if err != nil {
		return routing.TrainingJob{}, err
	}
	job, err := a.d.Training.Submit(ctx, act.OrgID, act.UserID, via, data)
	if err != nil {
		return routing.TrainingJob{}, err
	}
	a.d.Logger.InfoContext(ctx, "routing training queued", "org_id", act.OrgID, "user_id", act.UserID,
		"job_id", job.ID, "samples", job.Samples, "via", via)
	return job, nil
}

// listJobs handles GET /api/v1/routing/jobs: the organisation's latest
// training jobs, newest first.
func (a *API) listJobs(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, false)
	if err != nil {
		return a.fail(c, err)
	}
	jobs, err := a.d.Training.List(c.UserContext(), act.OrgID, jobListLimit)
	if err != nil {
		return a.fail(c, err)
	}
	if jobs == nil {
		jobs = []routing.TrainingJob{}
	}
	return c.JSON(fiber.Map{"jobs": jobs})
}

// getJob handles GET /api/v1/routing/jobs/{id}: one job's status and
// progress, on any replica.
func (a *API) getJob(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, false)
	if err != nil {
		return a.fail(c, err)
	}
	job, err := a.d.Training.Get(c.UserContext(), act.OrgID, c.Params("id"))
	if err != nil {
		return a.fail(c, err)
	}
	return c.JSON(fiber.Map{"job": job})
}

// cancelJob handles DELETE /api/v1/routing/jobs/{id} (admins and owners):
// a queued or running job is cancelled (409 routing.job_finished once it
// ended).
func (a *API) cancelJob(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, true)
	if err != nil {
		return a.fail(c, err)
	}
	job, err := a.d.Training.Cancel(c.UserContext(), act.OrgID, c.Params("id"), act.UserID)
	if err != nil {
		return a.fail(c, err)
	}
	return c.JSON(fiber.Map{"job": job})
}

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// trainingJob is a training job as the admin API shows it.
type trainingJob struct {
	ID        string `json:"id"`
	OrgID     string `json:"org_id"`
	Status    string `json:"status"`
	Stage     string `json:"stage"`
	Percent   int    `json:"percent"`
	Samples   int    `json:"samples"`
	BundleID  string `json:"bundle_id"`
	Error     string `json:"error"`
	ErrorCode string `json:"error_code"`
}

// evalData is n samples for gpt-5 and gpt-5-nano: code questions only the
// strong model answers, chat both do.
func evalData(n int) []byte {
	var data bytes.Buffer
	for i := 0; i < n; i++ {
		prompt, cheap := fmt.Sprintf("hello there, how is your day %d", i), 1.0
		if i%2 == 0 {
			prompt, cheap = fmt.Sprintf("implement a concurrent lock-free queue in Go with tests, variant %d", i), 0.0
		}
		line, _ := json.Marshal(map[string]any{"prompt": prompt,
			"scores": map[string]float64{"gpt-5": 1, "gpt-5-nano": cheap},
			"costs":  map[string]float64{"gpt-5": 0.01, "gpt-5-nano": 0.0004}})
		data.Write(append(line, '\n'))
	}
	return data.Bytes()
}

// uploadBundle posts JSONL evaluation data to base as token's organisation
// and returns the status, the job it answered with, and how long the call
// took.
func uploadBundle(t *testing.T, base, token string, data []byte) (int, trainingJob, []byte, time.Duration) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/api/v1/routing/bundles", bytes.NewReader(data))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/x-ndjson")
	start := time.Now()
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, trainingJob{}, nil, 0
	}
	raw, _ := io.ReadAll(r.Body)
	took := time.Since(start)
	r.Body.Close()
	var out struct {
		Job trainingJob `json:"job"`
	}
	_ = json.Unmarshal(raw, &out)
	return r.StatusCode, out.Job, raw, took
}

// waitJob polls the job on api's replica until it ends and returns it.
func waitJob(t *testing.T, api *apiClient, id string) trainingJob {
	t.Helper()
	var out struct {
		Job trainingJob `json:"job"`
	}
	// One training of 2,000 samples selects its scorer by 3x3 cross-validation
	// (27 fits) and takes one to two minutes of a core; the bound leaves room
	// for a busy machine and a job queued behind another.
	start := time.Now()
	testwait.Until(t, 6*time.Minute, "training job "+id, func() bool {
		api.do("GET", "/api/v1/routing/jobs/"+id, nil, 200, &out)
		return out.Job.Status != "queued" && out.Job.Status != "running"
	})
	t.Logf("training job %s ended %s after %s of waiting", id, out.Job.Status, time.Since(start).Round(time.Second))
	return out.Job
}

// trainBundle uploads data, waits for its job and returns the bundle id.
func trainBundle(t *testing.T, a *tenant, data []byte) string {
	t.Helper()
	status, job, raw, _ := uploadBundle(t, a.api.base, a.api.token, data)
	if status != 202 || job.ID == "" {
		t.Fatalf("upload: %d %s", status, raw)
	}
	done := waitJob(t, a.api, job.ID)
	if done.Status != "done" || done.BundleID == "" {
		t.Fatalf("training job ended %+v", done)
	}
	return done.BundleID
}

// routeVia asks base's /v1/route for prompt and returns the model and the
// bundle that decided.
func routeVia(t *testing.T, base, key, prompt string) (string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v1/route", strings.NewReader(`{"model":"auto","messages":[{"role":"user","content":"`+prompt+`"}]}`))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct {
		Model    string `json:"model"`
		Decision struct {
			BundleID string `json:"bundle_id"`
		} `json:"decision"`
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || json.Unmarshal(b, &ans) != nil {
		t.Fatalf("route: %d %s", resp.StatusCode, b)
	}
	return ans.Model, ans.Decision.BundleID
}

// TestTrainingJobs: two organisations upload evaluation data to one replica
// at once (it runs one training at a time). Both uploads are answered 202
// with a queued job at once (the old binary held the request for the
// training and refused the second with 429 routing.training_busy); both
// jobs finish, as the other replica shows; an organisation's bundle is then
// in use on that other replica.
func TestTrainingJobs(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	pg := freshPostgres(t)
	r1 := startHeddle(t, map[string]string{"HEDDLE_DATABASE_URL": pg, "HEDDLE_TRAINING_WORKERS": "1"})
	r2 := startHeddle(t, map[string]string{"HEDDLE_DATABASE_URL": pg,
		"HEDDLE_MASTER_KEYSET_FILE":  r1.DataDir + "/master-keyset.json",
		"HEDDLE_SESSION_SECRET_FILE": r1.DataDir + "/session-secret"})
	orgs := []*tenant{
		signUp(t, r1.URL, "trainer-a@example.com", "openai", fakeSecret, up.URL+"/v1"),
		signUp(t, r1.URL, "trainer-b@example.com", "openai", fakeSecret, up.URL+"/v1"),
	}
	data := evalData(2000)
	type answer struct {
		status int
		job    trainingJob
		raw    []byte
		took   time.Duration
	}
	answers := make([]answer, len(orgs))
	var wg sync.WaitGroup
	for i, a := range orgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, j, raw, took := uploadBundle(t, r1.URL, a.api.token, data)
			answers[i] = answer{s, j, raw, took}
		}()
	}
	wg.Wait()
	for i, ans := range answers {
		if ans.status != 202 || ans.job.ID == "" || ans.job.Status != "queued" || ans.job.Samples != 2000 || ans.job.OrgID != orgs[i].OrgID {
			t.Fatalf("upload of org %d: %d %s; want 202 with a queued job", i, ans.status, ans.raw)
		}
		t.Logf("upload of org %d (2000 samples, %d bytes) answered 202 in %s", i, len(data), ans.took)
	}
	// Another replica shows both jobs, each to its own organisation only.
	var jobs []trainingJob
	for i, a := range orgs {
		other := &apiClient{t: t, base: r2.URL, token: a.api.token}
		done := waitJob(t, other, answers[i].job.ID)
		if done.Status != "done" || done.BundleID == "" || done.Percent != 100 || done.Stage != "done" || done.Error != "" {
			t.Fatalf("job of org %d ended %+v", i, done)
		}
		var list struct {
			Jobs []trainingJob `json:"jobs"`
		}
		other.do("GET", "/api/v1/routing/jobs", nil, 200, &list)
		if len(list.Jobs) != 1 || list.Jobs[0].ID != done.ID {
			t.Fatalf("org %d lists %+v, want its one job", i, list.Jobs)
		}
		jobs = append(jobs, done)
	}
	other := &apiClient{t: t, base: r2.URL, token: orgs[0].api.token}
	other.do("GET", "/api/v1/routing/jobs/"+jobs[1].ID, nil, 404, nil)
	other.do("DELETE", "/api/v1/routing/jobs/"+jobs[0].ID, nil, 409, nil)
	for _, a := range orgs {
		if strings.Contains(r1.logs.String(), `"routing.training_busy"`) || strings.Contains(r1.logs.String(), a.Key) {
			t.Errorf("replica 1 logged a refusal or a key")
		}
	}

	// The bundle is in use once activated, on the other replica.
	other.do("PUT", "/api/v1/routing", map[string]any{"alpha": 0.8, "bundle_id": jobs[0].BundleID}, 200, nil)
	testwait.Until(t, 30*time.Second, "replica 2 routing with the trained bundle", func() bool {
		model, bundle := routeVia(t, r2.URL, orgs[0].Key, "implement a concurrent lock-free queue in Go with tests")
		return bundle == jobs[0].BundleID && model == "gpt-5"
	})
}

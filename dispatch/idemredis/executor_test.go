package idemredis_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/dispatch/idemredis"
	"github.com/heddle-gw/heddle/dispatch/provider/openai"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/openaichat"
)

// replicas are two executors, each with its own Store on one shared Redis,
// in front of one fake upstream.
type replicas struct {
	exec [2]*dispatch.Executor
	up   *dispatchtest.Upstream
	plan dispatch.Plan
	meta dispatch.Meta
	// second is replica 1's Redis client (hooks watch its scripts).
	second *redis.Client
}

func newReplicas(t *testing.T) *replicas {
	t.Helper()
	share := testdb.NewRedis(t)
	rdb, prefix := share.Client, share.Prefix
	r := &replicas{up: dispatchtest.NewUpstream(t)}
	r.plan = dispatch.Plan{Targets: []dispatch.Target{{Model: "model-a", Provider: "openai", Upstream: "a", Format: llm.FormatChat, BaseURL: r.up.URL + "/v1"}}}
	r.meta = dispatch.Meta{OrgID: "org-1", KeyID: "key-1", RequestID: "req-1", OperationID: "req-1/0", IdempotencyKey: "idem-1"}
	opts := []idemredis.Option{idemredis.WithPoll(5*time.Millisecond, 50*time.Millisecond)}
	r.second = testdb.DialRedis(t)
	for i, c := range []*idemredis.Store{idemredis.New(rdb, prefix, time.Minute, opts...), idemredis.New(r.second, prefix, time.Minute, opts...)} {
		r.exec[i] = dispatch.NewExecutor(dispatch.Config{FirstByteTimeout: 5 * time.Second, NonStreamTimeout: 5 * time.Second}, dispatch.Deps{
			Providers:   map[string]dispatch.Provider{"openai": openai.New(openai.Config{}, nil)},
			Credentials: dispatchtest.NewCredentials(map[string]dispatch.Credential{"openai": {ID: "cred-1", Secret: "sk-test"}}),
			Codecs:      map[llm.Format]llm.Codec{llm.FormatChat: openaichat.New()},
			Idempotency: c,
		})
	}
	return r
}

func chatOp(stream bool) *dispatch.Operation {
	raw := `{"model":"requested","messages":[{"role":"user","content":"hi"}]}`
	if stream {
		raw = `{"model":"requested","messages":[{"role":"user","content":"hi"}],"stream":true}`
	}
	return &dispatch.Operation{
		Purpose: dispatch.PurposeMain, Inbound: llm.FormatChat, Stream: stream, RawBody: []byte(raw),
		Request: &llm.Request{Model: "requested", Stream: stream, Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}},
	}
}

// run executes op on replica i in the background.
func (r *replicas) run(ctx context.Context, i int, stream bool) <-chan runOutcome {
	ch := make(chan runOutcome, 1)
	go func() {
		var out dispatch.StreamWriter
		if stream {
			out = &dispatchtest.Recorder{}
		}
		res, err := r.exec[i].Run(ctx, r.meta, r.plan, chatOp(stream), out)
		ch <- runOutcome{res, err}
	}()
	return ch
}

type runOutcome struct {
	res *dispatch.Result
	err error
}

func (r *replicas) waitRequests(t *testing.T, n int) {
	t.Helper()
	testwait.Until(t, time.Minute, fmt.Sprintf("%d upstream requests", n), func() bool { return len(r.up.Requests()) >= n })
}

func TestExecutorsJoinAcrossReplicas(t *testing.T) {
	r := newReplicas(t)
	r.up.Script("", dispatchtest.Step{Delay: 300 * time.Millisecond, Text: "only once"})
	first := r.run(context.Background(), 0, false)
	r.waitRequests(t, 1)
	second := r.run(context.Background(), 1, false)
	a, b := <-first, <-second
	if a.err != nil || b.err != nil {
		t.Fatalf("runs: %v, %v", a.err, b.err)
	}
	if n := len(r.up.Requests()); n != 1 {
		t.Fatalf("upstream got %d requests, want 1", n)
	}
	// The joiner made no attempt of its own (it is not billed again).
	if b.res.Response.Content[0].Text != "only once" || b.res.Served != a.res.Served || a.res.Attempts != 1 ||
		b.res.Attempts != 0 || b.res.Shared != dispatch.SharedJoin || a.res.Shared != dispatch.SharedNone {
		t.Fatalf("joined result %+v, owner's %+v", b.res, a.res)
	}
	again := <-r.run(context.Background(), 1, false)
	if again.err != nil || again.res.Response.Content[0].Text != "only once" || len(r.up.Requests()) != 1 ||
		again.res.Shared != dispatch.SharedReplay || again.res.Attempts != 0 {
		t.Fatalf("repeat in the window: %v, %+v (%d requests)", again.err, again.res, len(r.up.Requests()))
	}
}

func TestExecutorsOwnerCanceledWaiterRuns(t *testing.T) {
	r := newReplicas(t)
	r.up.Script("", dispatchtest.SlowFirstByte(2*time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	first := r.run(ctx, 0, false)
	r.waitRequests(t, 1)
	hook := newScriptHook(r.second)
	second := r.run(context.Background(), 1, false)
	// Two claim attempts on replica 1: it found the owner in flight and polls.
	<-hook.evaluated
	<-hook.evaluated
	cancel()
	if o := <-first; !errors.Is(o.err, context.Canceled) {
		t.Fatalf("first: %v", o.err)
	}
	if o := <-second; o.err != nil || o.res.Response == nil {
		t.Fatalf("second: %v", o.err)
	}
	if n := len(r.up.Requests()); n != 2 {
		t.Fatalf("upstream got %d requests, want 2", n)
	}
}

func TestExecutorsStreamingDuplicateRefused(t *testing.T) {
	r := newReplicas(t)
	r.up.Script("", dispatchtest.SlowFirstByte(400*time.Millisecond))
	first := r.run(context.Background(), 0, true)
	r.waitRequests(t, 1)
	if o := <-r.run(context.Background(), 1, true); !errors.Is(o.err, dispatch.ErrDuplicateInFlight) {
		t.Fatalf("streaming duplicate on the other replica: %v, want ErrDuplicateInFlight", o.err)
	}
	if o := <-first; o.err != nil {
		t.Fatalf("first: %v", o.err)
	}
	if n := len(r.up.Requests()); n != 1 {
		t.Fatalf("upstream got %d requests, want 1", n)
	}
}

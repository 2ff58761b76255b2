package routing

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// fakeEmbedder returns a fixed vector, an error, or blocks past any timeout
// (sleep; or block: until the channel is closed).
type fakeEmbedder struct {
	id, fp string
	dim    int
	vec    []float32
	err    error
	sleep  time.Duration
	block  chan struct{}
}

func (f *fakeEmbedder) ID() string          { return f.id }
func (f *fakeEmbedder) Dim() int            { return f.dim }
func (f *fakeEmbedder) Fingerprint() string { return f.fp }
func (f *fakeEmbedder) Embed(ctx context.Context, text string) ([]float32, error) {
	if f.sleep > 0 {
		time.Sleep(f.sleep) // ignores ctx on purpose, like a pure-Go model
	}
	if f.block != nil {
		<-f.block // ignores ctx on purpose too
	}
	return f.vec, f.err
}

// blocked returns a channel a fakeEmbedder waits on until the test ends.
func blocked(t *testing.T) chan struct{} {
	c := make(chan struct{})
	t.Cleanup(func() { close(c) })
	return c
}

func handEmbedder() *fakeEmbedder {
	return &fakeEmbedder{id: "fake", fp: "fp", dim: 2, vec: []float32{0.8, 0.6}}
}

func TestDecideExplains(t *testing.T) {
	b := handBundle(t)
	r, err := NewRouter(b, handEmbedder(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.Decide(context.Background(), Query{
		Text: "anything", Alpha: 0.5, Eligible: []string{"A", "B", "A", "C", "Z"},
		Drops: []Drop{{Model: "D", Reason: DropDenied}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.Model != "B" || d.Alpha != 0.5 || d.BundleID != "hand" || d.BundleRevision != "1" || d.EmbedderID != "fake" {
		t.Fatalf("decision %+v", d)
	}
	if len(d.Clusters) != 2 || len(d.Scores) != 3 || !near(d.Scores[1].Score, 0.714146) {
		t.Fatalf("explanation clusters %+v scores %+v", d.Clusters, d.Scores)
	}
	wantDrops := []Drop{{"D", DropDenied}, {"Z", DropNotInBundle}}
	if len(d.Drops) != 2 || d.Drops[0] != wantDrops[0] || d.Drops[1] != wantDrops[1] {
		t.Fatalf("drops %+v, want %+v", d.Drops, wantDrops)
	}
	if d.EmbedLatency <= 0 {
		t.Fatal("embed latency not recorded")
	}
}

func TestFailClosed(t *testing.T) {
	ctx := context.Background()
	b := handBundle(t)
	// Only the timeout case has a short timeout: a stalled test process
	// must not turn another case into a timeout.
	newRouter := func(e Embedder, timeout time.Duration) *Router {
		r, err := NewRouter(b, e, Config{EmbedTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	all := []string{"A", "B", "C"}
	for _, tc := range []struct {
		name   string
		router *Router
		q      Query
		cause  error
	}{
		{"no bundle", nil, Query{Alpha: 0.5, Eligible: all}, ErrNoBundle},
		{"embed error", newRouter(&fakeEmbedder{id: "fake", fp: "fp", dim: 2, err: errors.New("model crashed")}, time.Minute), Query{Alpha: 0.5, Eligible: all}, ErrEmbed},
		// The embedder is still blocked when Decide returns: the timeout bounded the wait.
		{"embed timeout", newRouter(&fakeEmbedder{id: "fake", fp: "fp", dim: 2, vec: []float32{1, 0}, block: blocked(t)}, 20*time.Millisecond), Query{Alpha: 0.5, Eligible: all}, ErrEmbedTimeout},
		{"wrong dimension", newRouter(&fakeEmbedder{id: "fake", fp: "fp", dim: 2, vec: []float32{1}}, time.Minute), Query{Alpha: 0.5, Eligible: all}, ErrEmbed},
		{"no eligible model", newRouter(handEmbedder(), time.Minute), Query{Alpha: 0.5}, ErrNoEligible},
		{"only unknown models", newRouter(handEmbedder(), time.Minute), Query{Alpha: 0.5, Eligible: []string{"X"}}, ErrNoEligible},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.router.Decide(ctx, tc.q)
			if !errors.Is(err, ErrUnavailable) || !errors.Is(err, tc.cause) {
				t.Fatalf("err %v, want ErrUnavailable and %v", err, tc.cause)
			}
			if d.Model != "" {
				t.Fatalf("a failed decision chose %q", d.Model)
			}
		})
	}
}

func TestNewRouterRefusesMismatch(t *testing.T) {
	b := handBundle(t)
	if _, err := NewRouter(nil, handEmbedder(), Config{}); !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrNoBundle) {
		t.Fatalf("nil bundle: %v", err)
	}
	if _, err := NewRouter(&Bundle{ID: "hand-made"}, handEmbedder(), Config{}); !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrBundle) {
		t.Fatalf("invalid hand-built bundle: %v", err)
	}
	for name, e := range map[string]Embedder{
		"id":          &fakeEmbedder{id: "other", fp: "fp", dim: 2},
		"dim":         &fakeEmbedder{id: "fake", fp: "fp", dim: 3},
		"fingerprint": &fakeEmbedder{id: "fake", fp: "other", dim: 2},
		"nil":         nil,
	} {
		if _, err := NewRouter(b, e, Config{}); !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrEmbedderMismatch) {
			t.Errorf("%s mismatch: err %v, want ErrUnavailable and ErrEmbedderMismatch", name, err)
		}
	}
}

// recordingEmbedder remembers the text it was asked to embed.
type recordingEmbedder struct {
	fakeEmbedder
	got string
}

func (r *recordingEmbedder) Embed(ctx context.Context, text string) ([]float32, error) {
	r.got = text
	return r.vec, nil
}

func TestDecideEmbedsTheLastBytes(t *testing.T) {
	rec := &recordingEmbedder{fakeEmbedder: *handEmbedder()}
	r, _ := NewRouter(handBundle(t), rec, Config{MaxEmbedBytes: 5})
	if _, err := r.Decide(context.Background(), Query{Text: "0123456789", Alpha: 0.5, Eligible: []string{"A"}}); err != nil {
		t.Fatal(err)
	}
	if rec.got != "56789" {
		t.Fatalf("embedded %q, want the last 5 bytes", rec.got)
	}
}

func TestDecideRejectsBadAlpha(t *testing.T) {
	r, _ := NewRouter(handBundle(t), handEmbedder(), Config{})
	for _, a := range []float64{-0.1, 1.1} {
		if _, err := r.Decide(context.Background(), Query{Alpha: a, Eligible: []string{"A"}}); !errors.Is(err, ErrUsage) {
			t.Errorf("alpha %v: err %v, want ErrUsage", a, err)
		}
	}
}

// inlineEmbedder is a fakeEmbedder that runs on the caller's goroutine.
type inlineEmbedder struct{ fakeEmbedder }

func (*inlineEmbedder) InlineEmbed() bool { return true }

func TestEmbedWithTimeoutInline(t *testing.T) {
	ctx := context.Background()
	fast := &inlineEmbedder{*handEmbedder()}
	if v, err := EmbedWithTimeout(ctx, fast, "x", time.Second); err != nil || len(v) != 2 {
		t.Fatalf("v %v err %v", v, err)
	}
	slow := &inlineEmbedder{fakeEmbedder{dim: 2, vec: []float32{1, 0}, sleep: 30 * time.Millisecond}}
	if _, err := EmbedWithTimeout(ctx, slow, "x", 5*time.Millisecond); !errors.Is(err, ErrEmbedTimeout) {
		t.Fatalf("slow inline embed: err %v, want ErrEmbedTimeout", err)
	}
	failing := &inlineEmbedder{fakeEmbedder{dim: 2, err: errors.New("bad")}}
	if _, err := EmbedWithTimeout(ctx, failing, "x", time.Second); !errors.Is(err, ErrEmbed) {
		t.Fatalf("failing inline embed: err %v", err)
	}
	// A text over InlineMaxBytes takes the goroutine path, which gives up on
	// time: it returns while the embedder is still blocked.
	long := string(make([]byte, InlineMaxBytes+1))
	slow.sleep, slow.block = 0, blocked(t)
	if _, err := EmbedWithTimeout(ctx, slow, long, 10*time.Millisecond); !errors.Is(err, ErrEmbedTimeout) {
		t.Fatalf("long text: err %v, want ErrEmbedTimeout", err)
	}
}

func TestEmbedWithTimeout(t *testing.T) {
	ctx := context.Background()
	v, err := EmbedWithTimeout(ctx, handEmbedder(), "x", 0)
	if err != nil || len(v) != 2 {
		t.Fatalf("v %v err %v", v, err)
	}
	_, err = EmbedWithTimeout(ctx, &fakeEmbedder{dim: 2, block: blocked(t)}, "x", 10*time.Millisecond)
	if !errors.Is(err, ErrEmbedTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want ErrEmbedTimeout", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = EmbedWithTimeout(cctx, &fakeEmbedder{dim: 2, block: blocked(t)}, "x", time.Second)
	if !errors.Is(err, ErrEmbed) || !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: err %v", err)
	}
}

// TestDecideStripsThePreamble: the router embeds the text after the longest
// of the bundle's preambles the query starts with, then its last bytes; a
// query that is nothing but a preamble, or starts with none, is embedded
// as it is.
func TestDecideStripsThePreamble(t *testing.T) {
	b := handBundle(t)
	b.Preambles = []string{"Example 1\nExample 2\n\n", "Example 1\n"}
	if err := b.Prepare(); err != nil {
		t.Fatal(err)
	}
	rec := &recordingEmbedder{fakeEmbedder: *handEmbedder()}
	r, err := NewRouter(b, rec, Config{MaxEmbedBytes: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ text, want string }{
		{"Example 1\nExample 2\n\nWhat is 2+2?", " is 2+2?"},
		{"Example 1\nExample 2\n\n 3+3?", "3+3?"},
		{"Example 1\nSay hi", "Say hi"},
		{"Example 1\n", "ample 1\n"},
		{"Say hi", "Say hi"},
		{"Example 2\n\nSay", "e 2\n\nSay"},
	} {
		if _, err := r.Decide(context.Background(), Query{Text: tc.text, Alpha: 0.5, Eligible: []string{"A"}}); err != nil {
			t.Fatal(err)
		}
		if rec.got != tc.want {
			t.Errorf("%q embedded as %q, want %q", tc.text, rec.got, tc.want)
		}
	}
	for _, bad := range [][]string{{"short\n", "longer one\n"}, {" \n"}} {
		b.Preambles = bad
		if err := b.Prepare(); !errors.Is(err, ErrBundle) {
			t.Errorf("preambles %q accepted (%v)", bad, err)
		}
	}
}

// TestDecideReusesEmbeddingBuffer: with an inline embedder that writes into
// a buffer (lexical-v1), a decision allocates only its eligible list and
// its result (clusters, scores), not a fresh embedding vector.
func TestDecideReusesEmbeddingBuffer(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	r, err := DefaultRouter(Config{})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Text: strings.Repeat("Refactor the session handler and add a test. ", 20), Alpha: 0.6, Eligible: r.Bundle().Models}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := r.Decide(ctx, q); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 3 {
		t.Fatalf("Decide allocates %v times, want at most 3 (eligible, clusters, scores)", allocs)
	}
}

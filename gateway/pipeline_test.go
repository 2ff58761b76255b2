package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

// stageNames lists the pipeline's stages by type, in order.
func stageNames(s *Service) (in, after, end []string) {
	for _, st := range s.in {
		in = append(in, fmt.Sprintf("%T", st))
	}
	for _, f := range s.after {
		after = append(after, fmt.Sprintf("%T", f))
	}
	for _, f := range s.end {
		end = append(end, fmt.Sprintf("%T", f))
	}
	return in, after, end
}

func TestNewPipeline(t *testing.T) {
	cache, err := routing.NewCache(routing.NewMemoryCacheStore(0, 0, nil), nil, routing.CacheConfig{})
	if err != nil {
		t.Fatal(err)
	}
	pins := routingtest.NewPinStore(nil)
	for _, tt := range []struct {
		name              string
		opts              []Option
		wantIn, wantAfter string
		wantEnd           string
	}{
		{name: "required stages only",
			wantIn:    "[gateway.scopeStage gateway.decodeStage gateway.policyStage gateway.routeStage gateway.dispatchStage]",
			wantAfter: "[]", wantEnd: "[gateway.accountStage gateway.recordStage]"},
		{name: "every optional stage, in pipeline order whatever the option order",
			opts: []Option{WithCredits(&fakeCredits{}), WithPins(pins, routing.HandoverConfig{}), WithCache(cache), WithContent(&keeper{}), WithGuard(&guardCalls{})},
			wantIn: "[gateway.scopeStage gateway.admitStage gateway.decodeStage gateway.policyStage gateway.planStage gateway.contentStage " +
				"gateway.cacheStage gateway.routeStage gateway.pinStage gateway.creditStage gateway.dispatchStage]",
			wantAfter: "[gateway.contentStage gateway.cacheStage gateway.pinStage]",
			wantEnd:   "[gateway.accountStage gateway.creditStage gateway.admitStage gateway.recordStage]"},
		{name: "a nil cache adds no stage", opts: []Option{WithCache(nil)},
			wantIn:    "[gateway.scopeStage gateway.decodeStage gateway.policyStage gateway.routeStage gateway.dispatchStage]",
			wantAfter: "[]", wantEnd: "[gateway.accountStage gateway.recordStage]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, after, end := stageNames(testService(t, Config{}, Deps{}, tt.opts...))
			if got := fmt.Sprint(in); got != tt.wantIn {
				t.Errorf("in %s\nwant %s", got, tt.wantIn)
			}
			if got := fmt.Sprint(after); got != tt.wantAfter {
				t.Errorf("after %s, want %s", got, tt.wantAfter)
			}
			if got := fmt.Sprint(end); got != tt.wantEnd {
				t.Errorf("end %s, want %s", got, tt.wantEnd)
			}
		})
	}
}

func TestNewRefusesMissingDeps(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	full := Deps{Catalog: cat, Codecs: Codecs{}, Executor: answerExec{}, Recorder: nopRecorder{}, Routers: StaticRouters{},
		Classify: func(error) (int, string) { return 500, "internal.error" }, Logger: slog.New(slog.DiscardHandler)}
	for _, tt := range []struct {
		name string
		cfg  Config
		drop func(*Deps)
	}{
		{name: "no catalog", cfg: Config{BaselineModel: "claude-sonnet-4-5"}, drop: func(d *Deps) { d.Catalog = nil }},
		{name: "no executor", cfg: Config{BaselineModel: "claude-sonnet-4-5"}, drop: func(d *Deps) { d.Executor = nil }},
		{name: "no recorder", cfg: Config{BaselineModel: "claude-sonnet-4-5"}, drop: func(d *Deps) { d.Recorder = nil }},
		{name: "no routers", cfg: Config{BaselineModel: "claude-sonnet-4-5"}, drop: func(d *Deps) { d.Routers = nil }},
		{name: "no classify", cfg: Config{BaselineModel: "claude-sonnet-4-5"}, drop: func(d *Deps) { d.Classify = nil }},
		{name: "no logger", cfg: Config{BaselineModel: "claude-sonnet-4-5"}, drop: func(d *Deps) { d.Logger = nil }},
		{name: "baseline not in the catalog", cfg: Config{BaselineModel: "gpt-9"}, drop: func(*Deps) {}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := full
			tt.drop(&d)
			if _, err := New(tt.cfg, d); !errors.Is(err, ErrConfig) {
				t.Fatalf("err %v, want ErrConfig", err)
			}
		})
	}
	if _, err := New(Config{BaselineModel: "claude-sonnet-4-5"}, full); err != nil {
		t.Fatalf("complete deps: %v", err)
	}
}

func TestStaticRouters(t *testing.T) {
	r := &fakeRouter{}
	if got, _, err := (StaticRouters{Router: r}).For(context.Background(), "org"); err != nil || got != r {
		t.Fatalf("router %v err %v", got, err)
	}
	if _, _, err := (StaticRouters{}).For(context.Background(), "org"); !errors.Is(err, routing.ErrUnavailable) || !errors.Is(err, routing.ErrNoBundle) {
		t.Fatalf("no router: err %v, want it to fail closed", err)
	}
}

package gateway

import (
	"log/slog"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
	"github.com/heddle-gw/heddle/llm/gemini"
	"github.com/heddle-gw/heddle/llm/openaichat"
	"github.com/heddle-gw/heddle/llm/responses"
)

// testService is New with test defaults for what d and cfg leave zero: the
// default catalog, every codec, answerExec, a recorder that drops rows,
// StaticRouters without a router, every error as 500, a silent logger and
// claude-sonnet-4-5 as the baseline.
func testService(t testing.TB, cfg Config, d Deps, opts ...Option) *Service {
	t.Helper()
	if d.Catalog == nil {
		cat, err := catalog.Default()
		if err != nil {
			t.Fatal(err)
		}
		d.Catalog = cat
	}
	if d.Codecs == nil {
		d.Codecs = Codecs{llm.FormatChat: openaichat.New(), llm.FormatAnthropic: anthropic.New(),
			llm.FormatResponses: responses.New(), llm.FormatGemini: gemini.New()}
	}
	if d.Executor == nil {
		d.Executor = answerExec{}
	}
	if d.Recorder == nil {
		d.Recorder = nopRecorder{}
	}
	if d.Routers == nil {
		d.Routers = StaticRouters{}
	}
	if d.Classify == nil {
		d.Classify = func(error) (int, string) { return 500, "internal.error" }
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.BaselineModel == "" {
		cfg.BaselineModel = "claude-sonnet-4-5"
	}
	s, err := New(cfg, d, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

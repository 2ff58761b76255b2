package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/gateway/httpapi"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
	"github.com/heddle-gw/heddle/llm/gemini"
	"github.com/heddle-gw/heddle/llm/openaichat"
	"github.com/heddle-gw/heddle/llm/responses"
	"github.com/heddle-gw/heddle/routing"
)

// settingsOnly is a RouterSource with settings and no router (listing
// models needs no router).
type settingsOnly struct{ st routing.OrgSettings }

func (s settingsOnly) For(context.Context, string) (gateway.Router, routing.OrgSettings, error) {
	return nil, s.st, nil
}

// TestModelLists: each format's model list names the embedding models
// where that API has embeddings (OpenAI's and Gemini's, with Gemini's
// embed methods; not Anthropic's) and marks the organisation's aliases
// with their targets.
func TestModelLists(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	st := routing.OrgSettings{Aliases: map[string]string{"fast": "auto", "house": "gpt-5-mini", "embed": "text-embedding-3-large"}}
	svc, err := gateway.New(gateway.Config{DefaultAlpha: 0.5, BaselineModel: "claude-sonnet-4-5"}, gateway.Deps{
		Catalog: cat, Codecs: gateway.Codecs{llm.FormatAnthropic: anthropic.New(), llm.FormatChat: openaichat.New(),
			llm.FormatResponses: responses.New(), llm.FormatGemini: gemini.New()},
		Executor: &executor{t: t}, Recorder: &recorder{}, Routers: settingsOnly{st}, Logger: logger, Classify: httpapi.Classify,
	})
	if err != nil {
		t.Fatal(err)
	}
	h := httpapi.New(httpapi.Deps{Service: svc, Auth: staticAuth{}, Catalog: cat, Logger: logger})
	app := fiber.New(fiber.Config{ErrorHandler: h.ErrorHandler, DisableStartupMessage: true})
	h.Mount(app)
	get := func(path string, header map[string]string) map[string]any {
		t.Helper()
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", "Bearer "+testKey)
		req.Header.Set("x-goog-api-key", testKey)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := app.Test(req, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var out map[string]any
		if resp.StatusCode != 200 || json.Unmarshal(b, &out) != nil {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return out
	}
	byID := func(list any, key string) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, m := range list.([]any) {
			o := m.(map[string]any)
			out[strings.TrimPrefix(o[key].(string), "models/")] = o
		}
		return out
	}

	openai := byID(get("/v1/models", nil)["data"], "id")
	for _, id := range []string{"auto", "gpt-5-mini", "text-embedding-3-small", "text-embedding-3-large", "fast", "house", "embed"} {
		if openai[id] == nil {
			t.Errorf("OpenAI's list lacks %s", id)
		}
	}
	for id, target := range map[string]string{"fast": "auto", "house": "gpt-5-mini", "embed": "text-embedding-3-large"} {
		if got := openai[id]["heddle_alias_of"]; got != target {
			t.Errorf("OpenAI's %s: heddle_alias_of %v, want %s", id, got, target)
		}
	}
	if _, marked := openai["gpt-5-mini"]["heddle_alias_of"]; marked {
		t.Errorf("a model is marked as an alias: %v", openai["gpt-5-mini"])
	}

	anth := byID(get("/v1/models", map[string]string{"anthropic-version": "2023-06-01"})["data"], "id")
	if anth["text-embedding-3-small"] != nil || anth["embed"] != nil {
		t.Errorf("Anthropic's list names embedding models: %v %v", anth["text-embedding-3-small"], anth["embed"])
	}
	if h := anth["house"]; h == nil || h["display_name"] != "house (alias of gpt-5-mini)" || h["heddle_alias_of"] != "gpt-5-mini" {
		t.Errorf("Anthropic's alias entry %v", h)
	}

	gem := byID(get("/v1beta/models", nil)["models"], "name")
	if e := gem["text-embedding-3-small"]; e == nil || !slices.Equal(toStrings(e["supportedGenerationMethods"]), []string{"embedContent", "batchEmbedContents"}) {
		t.Errorf("Gemini's embedding entry %v", e)
	}
	if g := gem["gpt-5-mini"]; g == nil || !slices.Contains(toStrings(g["supportedGenerationMethods"]), "generateContent") {
		t.Errorf("Gemini's chat entry %v", g)
	}
	if a := gem["embed"]; a == nil || a["baseModelId"] != "text-embedding-3-large" {
		t.Errorf("Gemini's alias entry %v", a)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

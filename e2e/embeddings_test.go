package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// embeddingRow is a request row of GET /api/v1/requests, as an embeddings
// request fills it.
type embeddingRow struct {
	ID             string `json:"id"`
	RequestedModel string `json:"requested_model"`
	ServedModel    string `json:"served_model"`
	Provider       string `json:"provider"`
	RouteKind      string `json:"route_kind"`
	Attempts       int    `json:"attempts"`
	InputTokens    int64  `json:"input_tokens"`
	OutputTokens   int64  `json:"output_tokens"`
	CostMicros     int64  `json:"cost_micros"`
	SavingsMicros  int64  `json:"savings_micros"`
	Status         int    `json:"status"`
	ErrorCode      string `json:"error_code"`
}

// TestEmbeddingsSDK: the official OpenAI Go SDK embeds an array of strings
// (after one upstream 503, retried) and one string as base64 through
// /v1/embeddings; the fake OpenAI upstream gets the caller's body with its
// dimensions; the admin API shows each request with route kind
// "embeddings", its tokens and its cost at the catalog's price
// (text-embedding-3-large, $0.13 per million input tokens); a chat model
// is refused as an unknown embeddings model in OpenAI's shape; and once a hard organisation budget is
// spent, the next embeddings request is refused with 402 without reaching
// the upstream.
func TestEmbeddingsSDK(t *testing.T) {
	in := startHeddle(t, nil)
	up := dispatchtest.NewUpstream(t)
	tn := signUp(t, in.URL, "embeddings@example.com", "openai", fakeSecret, up.URL+"/v1")
	const model = "text-embedding-3-large"
	// 500,000 input tokens at $0.13 per million: 65,000 micro-dollars.
	up.Script(model, dispatchtest.Step{Status: 503}, dispatchtest.Step{InputTokens: 500_000},
		dispatchtest.Step{InputTokens: 500_000})
	client := openai.NewClient(oaoption.WithBaseURL(in.URL+"/v1"), oaoption.WithAPIKey(tn.Key), oaoption.WithMaxRetries(0))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	res, err := client.Embeddings.New(ctx, openai.EmbeddingNewParams{
		Model: model, Dimensions: openai.Int(4),
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"first document", "second document"}},
	})
	if err != nil {
		t.Fatalf("embeddings through the SDK: %v\nlogs:\n%s", err, in.logs.String())
	}
	if len(res.Data) != 2 || len(res.Data[0].Embedding) != 4 || res.Data[1].Index != 1 ||
		res.Data[1].Embedding[0] != 1 || res.Usage.PromptTokens != 500_000 {
		t.Fatalf("SDK parsed %d vectors, first %v, usage %+v", len(res.Data), res.Data, res.Usage)
	}
	b64, err := client.Embeddings.New(ctx, openai.EmbeddingNewParams{
		Model: model, EncodingFormat: openai.EmbeddingNewParamsEncodingFormatBase64,
		Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("one query")},
	})
	if err != nil {
		t.Fatalf("base64 embeddings through the SDK: %v", err)
	}
	if len(b64.Data) != 1 || len(b64.Data[0].Embedding) != 8 || b64.Data[0].Embedding[1] != float64(float32(1)/3) {
		t.Fatalf("SDK decoded base64 vectors %+v", b64.Data)
	}

	reqs := up.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the upstream got %d requests, want 3 (a 503, its retry, the base64 one)", len(reqs))
	}
	for i, r := range reqs {
		var body struct {
			Input      json.RawMessage `json:"input"`
			Dimensions int             `json:"dimensions"`
		}
		decodeBody(t, r, &body)
		if r.Path != "/v1/embeddings" || r.Model != model || r.Header.Get("Authorization") != "Bearer "+fakeSecret {
			t.Errorf("upstream request %d: %s model %q", i, r.Path, r.Model)
		}
		if i < 2 && (body.Dimensions != 4 || !sameJSON(string(body.Input), `["first document","second document"]`)) {
			t.Errorf("upstream request %d did not carry the caller's input and dimensions: %s", i, r.Body)
		}
	}

	var nf *openai.Error
	_, err = client.Embeddings.New(ctx, openai.EmbeddingNewParams{
		Model: "gpt-5", Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("x")},
	})
	if !errors.As(err, &nf) || nf.StatusCode != 400 || nf.Type != "invalid_request_error" ||
		nf.Message != `model: "gpt-5" as an embedding model is not a known model` {
		t.Errorf("a chat model as the embeddings model: %v, want a 400 in OpenAI's shape", err)
	}

	var page struct {
		Requests []embeddingRow `json:"requests"`
	}
	var served []embeddingRow
	testwait.Until(t, 10*time.Second, "three request records", func() bool {
		page.Requests = nil
		tn.api.do("GET", "/api/v1/requests?limit=20", nil, 200, &page)
		return len(page.Requests) == 3
	})
	for _, r := range page.Requests {
		if r.Status == 200 {
			served = append(served, r)
		}
	}
	if len(served) != 2 {
		t.Fatalf("admin API lists %d served requests, want 2: %+v", len(served), page.Requests)
	}
	for _, r := range served {
		if r.RouteKind != "embeddings" || r.RequestedModel != model || r.ServedModel != model || r.Provider != "openai" ||
			r.InputTokens != 500_000 || r.OutputTokens != 0 || r.CostMicros != 65_000 || r.SavingsMicros != 0 {
			t.Errorf("embeddings record %+v", r)
		}
	}
	attempts := served[0].Attempts + served[1].Attempts
	if attempts != 3 {
		t.Errorf("records count %d attempts, want 3 (the 503 retried)", attempts)
	}
	out, _ := json.Marshal(served)
	t.Logf("GET /api/v1/requests (embeddings): %s", out)

	// A hard org budget below what was spent: the next request is refused.
	tn.api.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 10, "daily_mode": "hard"}, 200, nil)
	before := len(up.Requests())
	var refused *openai.Error
	testwait.Until(t, 10*time.Second, "the org budget to refuse embeddings", func() bool {
		up.Script(model, dispatchtest.Step{InputTokens: 500_000})
		_, err := client.Embeddings.New(ctx, openai.EmbeddingNewParams{
			Model: model, Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("over budget")},
		})
		return errors.As(err, &refused)
	})
	if refused.StatusCode != 402 || refused.Code != "insufficient_quota" {
		t.Errorf("over budget: %d %q %s", refused.StatusCode, refused.Code, refused.Message)
	}
	t.Logf("over budget: %d %s: %s", refused.StatusCode, refused.Code, refused.Message)
	if n := len(up.Requests()); n != before {
		t.Errorf("%d refused requests reached the upstream", n-before)
	}
	testwait.Until(t, 10*time.Second, "a 402 record naming "+model, func() bool {
		page.Requests = nil
		tn.api.do("GET", "/api/v1/requests?limit=20", nil, 200, &page)
		for _, r := range page.Requests {
			if r.Status == 402 && r.ErrorCode == "billing.budget_exceeded" && r.RequestedModel == model {
				return true
			}
		}
		return false
	})
}

// TestEmbeddingsGemini: the official Google GenAI SDK's EmbedContent (which
// calls :batchEmbedContents) and a plain :embedContent reach
// gemini-embedding-001 through Gemini's OpenAI-compatible endpoint with the
// organisation's google credential; the answers come back in Gemini's
// shape, and the records carry the tokens and the cost ($0.15 per million).
func TestEmbeddingsGemini(t *testing.T) {
	in := startHeddle(t, nil)
	up := dispatchtest.NewUpstream(t)
	tn := signUp(t, in.URL, "gemini-embeddings@example.com", "google", fakeSecret, up.URL)
	const model = "gemini-embedding-001"
	up.Script(model, dispatchtest.Step{InputTokens: 200_000}, dispatchtest.Step{InputTokens: 200_000})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: tn.Key, Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: in.URL}})
	if err != nil {
		t.Fatal(err)
	}
	dims := int32(4)
	res, err := client.Models.EmbedContent(ctx, model,
		[]*genai.Content{genai.NewContentFromText("first", genai.RoleUser), genai.NewContentFromText("second", genai.RoleUser)},
		&genai.EmbedContentConfig{OutputDimensionality: &dims})
	if err != nil {
		t.Fatalf("EmbedContent through the GenAI SDK: %v\nlogs:\n%s", err, in.logs.String())
	}
	if len(res.Embeddings) != 2 || len(res.Embeddings[0].Values) != 4 || res.Embeddings[0].Values[0] != 0.5 || res.Embeddings[1].Values[0] != 1 {
		t.Fatalf("SDK parsed %+v", res.Embeddings)
	}
	single := `{"content":{"parts":[{"text":"one"},{"text":"two"}]}}`
	req, _ := http.NewRequest("POST", in.URL+"/v1beta/models/"+model+":embedContent", strings.NewReader(single))
	req.Header.Set("x-goog-api-key", tn.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var one struct {
		Embedding struct {
			Values []float64 `json:"values"`
		} `json:"embedding"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&one); err != nil || resp.StatusCode != 200 || len(one.Embedding.Values) != 8 ||
		resp.Header.Get("x-heddle-provider") != "google-openai" {
		t.Fatalf(":embedContent: %d %v %+v provider %q", resp.StatusCode, err, one, resp.Header.Get("x-heddle-provider"))
	}

	reqs := up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the upstream got %d requests, want 2", len(reqs))
	}
	want := []string{`{"model":"gemini-embedding-001","input":["first","second"],"dimensions":4,"encoding_format":"float"}`,
		`{"model":"gemini-embedding-001","input":["one\ntwo"],"encoding_format":"float"}`}
	for i, r := range reqs {
		if r.Path != "/embeddings" || r.Header.Get("Authorization") != "Bearer "+fakeSecret || string(r.Body) != want[i] {
			t.Errorf("upstream request %d: %s %s", i, r.Path, r.Body)
		}
	}
	var page struct {
		Requests []embeddingRow `json:"requests"`
	}
	testwait.Until(t, 10*time.Second, "two request records", func() bool {
		page.Requests = nil
		tn.api.do("GET", "/api/v1/requests?limit=20", nil, 200, &page)
		return len(page.Requests) == 2
	})
	for _, r := range page.Requests {
		if r.Status != 200 || r.RouteKind != "embeddings" || r.ServedModel != model || r.Provider != "google-openai" ||
			r.InputTokens != 200_000 || r.CostMicros != 30_000 {
			t.Errorf("record %+v", r)
		}
	}
	out, _ := json.Marshal(page.Requests)
	t.Logf("GET /api/v1/requests (Gemini embeddings): %s", out)
}

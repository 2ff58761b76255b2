package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/web"
)

func TestConsoleModelsPage(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	v.signup("models@example.com")

	full := v.get("/models", nil)
	if full.status != 200 || !full.isFullPage() || full.tid("nav-models").AttrOr("class", "") != "active" ||
		full.tid("models-providers-empty").Length() != 1 || full.tid("models-own-empty").Length() != 1 ||
		full.tid("models-provider-form").Length() != 1 || full.tid("models-model-form").Length() != 1 {
		t.Fatalf("full models page: %d %s", full.status, full.body)
	}
	// The callable list is the Models service's answer (newDeps: the
	// catalog's first two models).
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range cat.Models()[:2] {
		if full.tid("models-callable-"+m.ID).Length() != 1 {
			t.Errorf("callable model %s missing: %s", m.ID, full.body)
		}
	}
	if n := full.tid("models-callable").Find("tr[data-testid^=models-callable-]").Length(); n != 2 {
		t.Errorf("%d callable rows, want 2", n)
	}
	for _, form := range []string{"models-provider-form", "models-model-form"} {
		if token, _ := full.tid(form).Find(`input[name="csrf_token"]`).Attr("value"); token != v.cookies[web.CSRFCookie] {
			t.Errorf("%s CSRF %q", form, token)
		}
	}
	if hx := v.get("/models", htmx); hx.status != 200 || hx.isFullPage() || hx.tid("models-own").Length() != 1 {
		t.Errorf("htmx content: %d %s", hx.status, hx.body)
	}

	// Without the CSRF token nothing is added.
	if p := v.do("POST", "/models/providers", url.Values{"name": {"acme"}}, htmx); p.status != 403 {
		t.Fatalf("post without CSRF: %d", p.status)
	}
	provider := url.Values{"name": {"acme"}, "base_url": {"https://10.1.2.3/v1"}, "secret": {"sk-acme-secret-1"}}
	p := v.post("/models/providers", provider, htmx)
	if p.status != 422 || p.tid("field-error-base_url").Length() != 1 || p.tid("models-provider-name").AttrOr("value", "") != "acme" ||
		strings.Contains(p.body, "sk-acme-secret-1") {
		t.Fatalf("private base URL: %d %s", p.status, p.body)
	}
	provider.Set("base_url", "https://llm.acme.example/v1")
	p = v.post("/models/providers", provider, htmx)
	if p.status != 200 || p.isFullPage() || p.tid("models-notice").Length() != 1 || p.tid("models-provider-acme").Length() != 1 ||
		p.tid("models-model-provider").Find(`option[value="acme"]`).Length() != 1 {
		t.Fatalf("add provider: %d %s", p.status, p.body)
	}

	model := url.Values{"id": {"acme-llama"}, "provider": {"acme"}, "upstream": {"meta/llama"}, "context_window": {"lots"},
		"max_output": {"1024"}, "tools": {"1"}, "price.input": {"0.2"}, "price.output": {"0.6"}}
	p = v.post("/models", model, htmx)
	if p.status != 422 || p.tid("field-error-context_window").Length() != 1 || p.tid("models-model-id").AttrOr("value", "") != "acme-llama" {
		t.Fatalf("bad context window: %d %s", p.status, p.body)
	}
	model.Set("context_window", "8192")
	model.Set("price.output", "-1")
	if p = v.post("/models", model, htmx); p.status != 422 || p.tid("field-error-price.output").Length() != 1 {
		t.Fatalf("negative price: %d %s", p.status, p.body)
	}
	model.Set("price.output", "0.6")
	p = v.post("/models", model, htmx)
	row := p.tid("models-own-acme-llama")
	if p.status != 200 || row.Length() != 1 || !strings.Contains(row.Text(), "meta/llama") || !strings.Contains(row.Text(), "0.6") {
		t.Fatalf("add model: %d %s", p.status, p.body)
	}

	// A provider with models is not deleted: 409 and a message.
	p = v.post("/models/providers/delete", url.Values{"name": {"acme"}}, htmx)
	if p.status != 409 || p.tid("models-error").Length() != 1 || p.tid("models-provider-acme").Length() != 1 {
		t.Fatalf("delete provider in use: %d %s", p.status, p.body)
	}
	if p = v.post("/models/delete", url.Values{"id": {"acme-llama"}}, htmx); p.status != 200 || p.tid("models-own-empty").Length() != 1 {
		t.Fatalf("delete model: %d %s", p.status, p.body)
	}
	// Without htmx a change redirects back to the page.
	if p = v.post("/models/providers/delete", url.Values{"name": {"acme"}}, nil); p.status != 303 || p.header.Get("Location") != "/models" {
		t.Fatalf("delete provider: %d %s", p.status, p.body)
	}
	if again := v.get("/models", nil); again.tid("models-providers-empty").Length() != 1 {
		t.Fatalf("provider still listed: %s", again.body)
	}
}

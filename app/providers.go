package app

import (
	"net/http"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/provider/anthropic"
	"github.com/heddle-gw/heddle/dispatch/provider/gemini"
	"github.com/heddle-gw/heddle/dispatch/provider/openai"
	"github.com/heddle-gw/heddle/dispatch/provider/openaicompat"
	"github.com/heddle-gw/heddle/llm"
)

// providers builds one adapter per catalog provider, keyed by name.
func providers(cat *catalog.Catalog, hc *http.Client, allowPrivate bool) map[string]dispatch.Provider {
	out := map[string]dispatch.Provider{}
	compat := openaicompat.Config{BaseURLs: map[string]string{}, AllowPrivate: allowPrivate}
	var compatNames []string
	for _, p := range cat.Providers() {
		switch {
		case p.Compatible:
			compat.BaseURLs[p.Name] = p.BaseURL
			compatNames = append(compatNames, p.Name)
		case p.Format == llm.FormatAnthropic:
			out[p.Name] = anthropic.New(anthropic.Config{Name: p.Name, BaseURL: p.BaseURL}, hc)
		case p.Format == llm.FormatGemini:
			out[p.Name] = gemini.New(gemini.Config{Name: p.Name, BaseURL: p.BaseURL}, hc)
		case p.Format == llm.FormatChat || p.Format == llm.FormatResponses:
			out[p.Name] = openai.New(openai.Config{Name: p.Name, BaseURL: p.BaseURL}, hc)
		}
	}
	if len(compatNames) > 0 {
		client := openaicompat.New(compat, hc)
		for _, n := range compatNames {
			out[n] = client
		}
	}
	return out
}

package routing

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

// Entry is one cached answer.
type Entry struct {
	// Format is the wire format Body is in (the scope's format).
	Format llm.Format
	// Model and Provider served the original request.
	Model    string
	Provider string
	StoredAt time.Time
	// Response is the complete canonical answer; replay it as a stream with
	// ReplayEvents and the caller's codec's stream encoder.
	Response *llm.Response
	// Body is the caller-format response body as first sent; empty when the
	// original was streamed, in which case the caller's codec encodes
	// Response.
	Body []byte
}

const entryVersion = 1

// entryWire is an Entry's stored form: JSON with the canonical response as
// encoding/json writes llm.Response and the body in base64.
type entryWire struct {
	V        int           `json:"v"`
	Format   llm.Format    `json:"format"`
	Model    string        `json:"model"`
	Provider string        `json:"provider"`
	StoredAt int64         `json:"stored_at_ms"`
	Response *llm.Response `json:"response"`
	Body     []byte        `json:"body,omitempty"`
}

func encodeEntry(e Entry) ([]byte, error) {
	raw, err := json.Marshal(entryWire{
		V: entryVersion, Format: e.Format, Model: e.Model, Provider: e.Provider,
		StoredAt: e.StoredAt.UnixMilli(), Response: e.Response, Body: e.Body,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCacheEntry, err)
	}
	return raw, nil
}

func decodeEntry(raw []byte) (Entry, error) {
	var w entryWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return Entry{}, fmt.Errorf("%w: %w", ErrCacheEntry, err)
	}
	if w.V != entryVersion || w.Response == nil {
		return Entry{}, fmt.Errorf("%w: version %d, response present %t", ErrCacheEntry, w.V, w.Response != nil)
	}
	return Entry{Format: w.Format, Model: w.Model, Provider: w.Provider,
		StoredAt: time.UnixMilli(w.StoredAt).UTC(), Response: w.Response, Body: w.Body}, nil
}

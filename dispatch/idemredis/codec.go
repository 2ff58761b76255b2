package idemredis

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

// codecVersion tags stored results; a record of another version is not
// trusted (ErrBadRecord) rather than half-decoded.
const codecVersion = 1

// storedResult is the wire form of a dispatch.Result. Field names are fixed
// here so a change to dispatch or llm types fails the round-trip test rather
// than silently changing what other replicas read.
type storedResult struct {
	V            int          `json:"v"`
	Served       storedTarget `json:"served"`
	FallbackUsed bool         `json:"fallback_used,omitempty"`
	Committed    bool         `json:"committed,omitempty"`
	Response     *storedResp  `json:"response,omitempty"`
	RawBody      []byte       `json:"raw_body,omitempty"`
	Usage        storedUsage  `json:"usage"`
	Attempts     int          `json:"attempts,omitempty"`
	TTFBNanos    int64        `json:"ttfb_ns,omitempty"`
	// Shared and Interrupted are stored for a faithful round trip; a
	// replay is marked by the executor whatever was stored.
	Shared      string `json:"shared,omitempty"`
	Interrupted string `json:"interrupted,omitempty"`
}

type storedTarget struct {
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
	Upstream string `json:"upstream,omitempty"`
	Format   string `json:"format,omitempty"`
	BaseURL  string `json:"base_url,omitempty"`
	// Price is the target's own price (an organisation's model).
	Price *catalog.Price `json:"price,omitempty"`
}

type storedUsage struct {
	Input      int `json:"input,omitempty"`
	Output     int `json:"output,omitempty"`
	CacheRead  int `json:"cache_read,omitempty"`
	CacheWrite int `json:"cache_write,omitempty"`
	Reasoning  int `json:"reasoning,omitempty"`
}

type storedResp struct {
	ID           string       `json:"id,omitempty"`
	Model        string       `json:"model,omitempty"`
	Content      []storedPart `json:"content,omitempty"`
	StopReason   string       `json:"stop_reason,omitempty"`
	StopSequence string       `json:"stop_sequence,omitempty"`
	Usage        storedUsage  `json:"usage"`
	Created      int64        `json:"created,omitempty"`
}

type storedPart struct {
	Type         string       `json:"type"`
	Text         string       `json:"text,omitempty"`
	URL          string       `json:"url,omitempty"`
	MediaType    string       `json:"media_type,omitempty"`
	Data         string       `json:"data,omitempty"`
	ID           string       `json:"id,omitempty"`
	Name         string       `json:"name,omitempty"`
	Arguments    string       `json:"arguments,omitempty"`
	Result       []storedPart `json:"result,omitempty"`
	IsError      bool         `json:"is_error,omitempty"`
	Signature    string       `json:"signature,omitempty"`
	Family       string       `json:"family,omitempty"`
	CacheControl string       `json:"cache_control,omitempty"`
}

// encodeResult serialises res for other replicas.
func encodeResult(res *dispatch.Result) ([]byte, error) {
	s := storedResult{
		V: codecVersion,
		Served: storedTarget{
			Model: res.Served.Model, Provider: res.Served.Provider, Upstream: res.Served.Upstream,
			Format: string(res.Served.Format), BaseURL: res.Served.BaseURL,
		},
		Shared:       string(res.Shared),
		Interrupted:  string(res.Interrupted),
		FallbackUsed: res.FallbackUsed,
		Committed:    res.Committed,
		RawBody:      res.RawBody,
		Usage:        usageOut(res.Usage),
		Attempts:     res.Attempts,
		TTFBNanos:    int64(res.TTFB),
	}
	if p := res.Served.Price; p != (catalog.Price{}) {
		s.Served.Price = &p
	}
	if r := res.Response; r != nil {
		s.Response = &storedResp{
			ID: r.ID, Model: r.Model, Content: partsOut(r.Content), StopReason: string(r.StopReason),
			StopSequence: r.StopSequence, Usage: usageOut(r.Usage), Created: r.Created,
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("idemredis: encode result: %w", err)
	}
	return b, nil
}

// decodeResult is the inverse of encodeResult.
func decodeResult(b []byte) (*dispatch.Result, error) {
	var s storedResult
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: result: %w", ErrBadRecord, err)
	}
	if s.V != codecVersion {
		return nil, fmt.Errorf("%w: result version %d", ErrBadRecord, s.V)
	}
	res := &dispatch.Result{
		Served: dispatch.Target{
			Model: s.Served.Model, Provider: s.Served.Provider, Upstream: s.Served.Upstream,
			Format: llm.Format(s.Served.Format), BaseURL: s.Served.BaseURL,
		},
		FallbackUsed: s.FallbackUsed,
		Committed:    s.Committed,
		RawBody:      s.RawBody,
		Usage:        usageIn(s.Usage),
		Attempts:     s.Attempts,
		TTFB:         time.Duration(s.TTFBNanos),
		Shared:       dispatch.Sharing(s.Shared),
		Interrupted:  dispatch.Reason(s.Interrupted),
	}
	if s.Served.Price != nil {
		res.Served.Price = *s.Served.Price
	}
	if r := s.Response; r != nil {
		res.Response = &llm.Response{
			ID: r.ID, Model: r.Model, Content: partsIn(r.Content), StopReason: llm.StopReason(r.StopReason),
			StopSequence: r.StopSequence, Usage: usageIn(r.Usage), Created: r.Created,
		}
	}
	return res, nil
}

func usageOut(u llm.Usage) storedUsage {
	return storedUsage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Reasoning: u.Reasoning}
}

func usageIn(u storedUsage) llm.Usage {
	return llm.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Reasoning: u.Reasoning}
}

func partsOut(ps []llm.Part) []storedPart {
	if ps == nil {
		return nil
	}
	out := make([]storedPart, len(ps))
	for i, p := range ps {
		out[i] = storedPart{
			Type: string(p.Type), Text: p.Text, URL: p.URL, MediaType: p.MediaType, Data: p.Data,
			ID: p.ID, Name: p.Name, Arguments: p.Arguments, Result: partsOut(p.Result), IsError: p.IsError,
			Signature: p.Signature, Family: p.Family, CacheControl: p.CacheControl,
		}
	}
	return out
}

func partsIn(ps []storedPart) []llm.Part {
	if ps == nil {
		return nil
	}
	out := make([]llm.Part, len(ps))
	for i, p := range ps {
		out[i] = llm.Part{
			Type: llm.PartType(p.Type), Text: p.Text, URL: p.URL, MediaType: p.MediaType, Data: p.Data,
			ID: p.ID, Name: p.Name, Arguments: p.Arguments, Result: partsIn(p.Result), IsError: p.IsError,
			Signature: p.Signature, Family: p.Family, CacheControl: p.CacheControl,
		}
	}
	return out
}

package gateway

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/openaichat"
	"github.com/heddle-gw/heddle/routing"
)

// serveCached answers from a cache entry: the stored body when the caller
// asked for a whole answer in the same format, else the canonical response
// re-encoded (as a stream when the caller streams).
func (s *Service) serveCached(t *Turn, req *llm.Request, codec llm.Codec, e routing.Entry, hit routing.Hit, out Output, rec *analytics.Request) error {
	served := Served{RequestID: t.RequestID, Model: e.Model, Provider: e.Provider, Route: RouteCache, Stream: req.Stream}
	rec.RouteKind, rec.CacheHit, rec.ServedModel, rec.Provider = RouteCache, true, e.Model, e.Provider
	rec.Decision = fmt.Sprintf("cache:%s similarity=%.3f threshold=%.2f", hit.Kind, hit.Similarity, hit.Threshold)
	if e.Response != nil {
		// A cache hit costs nothing; its savings are what the baseline
		// would have charged for the same tokens.
		u := e.Response.Usage
		rec.InputTokens, rec.OutputTokens = int64(u.Input), int64(u.Output)
		baseline := e.Model
		if m, err := s.d.Catalog.Lookup(req.Model); err == nil {
			baseline = m.ID
		}
		if m, err := s.d.Catalog.Lookup(baseline); err == nil {
			rec.BaselineMicros = int64(billing.Cost(u, m.Price))
			rec.SavingsMicros = rec.BaselineMicros
		}
	}
	if !req.Stream {
		body := e.Body
		if len(body) == 0 || e.Format != t.Format {
			var err error
			if body, err = codec.EncodeResponse(e.Response); err != nil {
				return fmt.Errorf("gateway: encode cached response: %w", err)
			}
		}
		out.Commit(served)
		return out.Write(body)
	}
	var buf bytes.Buffer
	enc := codec.NewStreamEncoder(&buf)
	if ce, ok := enc.(*openaichat.StreamEncoder); ok {
		ce.IncludeUsage = req.StreamUsage
	}
	out.Commit(served)
	for _, ev := range routing.ReplayEvents(e.Response) {
		buf.Reset()
		if err := enc.Encode(ev); err != nil {
			return fmt.Errorf("gateway: replay cached response: %w", err)
		}
		if buf.Len() > 0 {
			if err := out.Write(buf.Bytes()); err != nil {
				return err
			}
		}
	}
	return out.Flush()
}

// offerCache stores a served answer in the background; a slow or failing
// cache store never delays nor fails the request.
func (s *Service) offerCache(in routing.StoreInput) {
	if s.d.Cache == nil || in.Response == nil {
		return
	}
	if in.Body != nil {
		in.Body = append([]byte(nil), in.Body...)
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := s.d.Cache.Store(ctx, in); err != nil {
			s.d.Logger.WarnContext(ctx, "cache store failed", "err", err)
		}
	}()
}

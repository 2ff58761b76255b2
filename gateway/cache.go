package gateway

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// cacheStage answers from the user-scoped response cache and offers served
// answers to it. It runs after policy and the plan check (an entry served by
// a model the organisation's plan no longer covers is a miss), and its key carries what policy
// decided (the explicit model, or the routed policy) and the settings'
// revision, so no hit outlives a change of the organisation's aliases or
// allow and deny lists.
type cacheStage struct {
	cache   *routing.Cache
	catalog *catalog.Catalog
	logger  *slog.Logger
}

// cacheTurn is the turn's cache lookup, kept for the store.
type cacheTurn struct {
	scope  routing.CacheScope
	keyed  *llm.Request // the request as keyed: its model is the policy's decision
	bypass bool
	hit    routing.Hit
}

func (s cacheStage) run(ctx context.Context, p *pass) error {
	keyed := *p.req
	keyed.Model = p.verdict.cacheModel() + "@" + settingsRevision(p.org.settings)
	p.cache = cacheTurn{
		scope: routing.CacheScope{OrgID: p.t.Caller.OrgID, KeyID: p.t.Caller.KeyID, User: p.req.User, Format: p.t.Format},
		keyed: &keyed, bypass: p.org.cacheBypass(),
	}
	p.collect = true
	entry, hit, err := s.cache.Lookup(ctx, routing.LookupInput{Scope: p.cache.scope, Request: &keyed, Header: p.t.Header, Bypass: p.cache.bypass})
	if err != nil {
		s.logger.WarnContext(ctx, "cache lookup failed", "err", err)
	}
	if bindable := p.credit.funding.bindable(); bindable != nil && (hit.Kind == routing.HitExact || hit.Kind == routing.HitSemantic) &&
		!bindable(entry.Provider, entry.Model) {
		// Served by a model the plan (read by the plan stage, before this
		// lookup) no longer covers: answered afresh, and stored over.
		hit.Kind, hit.Reason = routing.HitMiss, "not_on_plan"
	}
	p.cache.hit = hit
	if hit.Kind != routing.HitExact && hit.Kind != routing.HitSemantic {
		return nil
	}
	p.answered, p.response = true, entry.Response
	return s.serve(p, entry, hit)
}

// settingsRevision names the version of the organisation's settings.
func settingsRevision(st routing.OrgSettings) string {
	if st.UpdatedAt.IsZero() {
		return "0"
	}
	return strconv.FormatInt(st.UpdatedAt.UnixNano(), 10)
}

// serve answers from a cache entry: the stored body when the caller asked
// for a whole answer in the same format, else the canonical response
// re-encoded (as a stream when the caller streams).
func (s cacheStage) serve(p *pass, e routing.Entry, hit routing.Hit) error {
	t, req, codec, out, rec := p.t, p.req, p.codec, p.out, p.rec
	served := Served{RequestID: t.RequestID, Model: e.Model, Provider: e.Provider, Route: RouteCache, Stream: req.Stream}
	rec.RouteKind, rec.CacheHit, rec.ServedModel, rec.Provider = RouteCache, true, e.Model, e.Provider
	rec.Decision = fmt.Sprintf("cache:%s similarity=%.3f threshold=%.2f", hit.Kind, hit.Similarity, hit.Threshold)
	if e.Response != nil {
		// A cache hit costs nothing; its savings are what the baseline
		// would have charged for the same tokens.
		u := e.Response.Usage
		rec.InputTokens, rec.OutputTokens = int64(u.Input), int64(u.Output)
		baseline := e.Model
		if m, err := s.catalog.Lookup(req.Model); err == nil {
			baseline = m.ID
		}
		if m, err := s.catalog.Lookup(baseline); err == nil {
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
	enc := newStreamEncoder(codec, &buf, req)
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

// follow stores an answer served upstream in the background; a slow or
// failing cache store never delays nor fails the request.
func (s cacheStage) follow(ctx context.Context, p *pass) {
	if p.answered || p.response == nil || p.result == nil || p.cache.hit.Kind == routing.HitBypass {
		return // a bypassed lookup (no-cache, no-store, the organisation) stores nothing either
	}
	in := routing.StoreInput{Scope: p.cache.scope, Request: p.cache.keyed, Header: p.t.Header, Bypass: p.cache.bypass,
		Keys: &p.cache.hit.Keys, Status: 200, Response: p.response, Model: p.result.Served.Model, Provider: p.result.Served.Provider}
	if p.body != nil {
		in.Body = append([]byte(nil), p.body...)
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := s.cache.Store(ctx, in); err != nil {
			s.logger.WarnContext(ctx, "cache store failed", "err", err)
		}
	}()
}

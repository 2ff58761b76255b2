package dispatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

// drainTimeout bounds the read of what follows a stream's done event, done so
// the connection can be reused.
const drainTimeout = 2 * time.Second

var (
	errNoContent     = errors.New("dispatch: stream ended before any content")
	errCutAfter      = errors.New("dispatch: stream ended without its final event")
	errUpstreamEvent = errors.New("dispatch: upstream stream error event")
)

// gate is the commit gate of one streamed attempt: it holds events until the
// first content event, then writes everything in order, flushing per event.
type gate struct {
	out       StreamWriter
	target    Target
	fallback  bool
	held      []llm.Event
	committed bool
}

// commit marks the commit point, telling a Committer writer which target
// serves before the first event is written.
func (g *gate) commit() {
	g.committed = true
	if c, ok := g.out.(Committer); ok {
		c.Commit(g.target, g.fallback)
	}
}

// pass holds ev before commit or writes it after; a content event commits.
func (g *gate) pass(ev llm.Event) error {
	if !g.committed {
		if !ev.IsContent() {
			g.held = append(g.held, ev)
			return nil
		}
		g.commit()
		for _, h := range g.held {
			if err := g.out.Write(h); err != nil {
				return err
			}
		}
		g.held = nil
	}
	if err := g.out.Write(ev); err != nil {
		return err
	}
	return g.out.Flush()
}

// release writes what is held (a well-formed stream with no content at all).
func (g *gate) release() error {
	g.commit()
	for _, h := range g.held {
		if err := g.out.Write(h); err != nil {
			return err
		}
	}
	g.held = nil
	return g.out.Flush()
}

// stream decodes a streamed answer through the commit gate. Before commit any
// failure leaves a retryable attempt; after it the failure is "committed": the
// client's stream is ended with an error event and the walk stops.
func (w *walk) stream(actx context.Context, t Target, wd *watchdog, a *attempt) {
	dec := w.e.codecs[t.Format].NewStreamDecoder(wd)
	g := &gate{out: w.out, target: t, fallback: w.res.FallbackUsed}
	defer func() { a.committed = g.committed }()
	sawDone := false
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			switch {
			case !g.committed && !sawDone:
				a.fail = &failure{reason: ReasonTransport, err: errNoContent}
			case !sawDone:
				w.afterCommit(g, a, &failure{reason: ReasonTransport, err: errCutAfter})
			case !g.committed:
				if err := g.release(); err != nil {
					a.fail = &failure{reason: ReasonCanceled, err: fmt.Errorf("dispatch: write to client: %w", err)}
				}
			}
			return
		}
		if err != nil {
			f := classify(w.ctx, actx, err)
			if g.committed {
				w.afterCommit(g, a, &f)
			} else {
				a.fail = &f
			}
			return
		}
		mergeUsage(&a.usage, ev.Usage)
		if ev.Type == llm.EventError && !g.committed {
			a.fail = &failure{reason: ReasonUpstream5xx, err: fmt.Errorf("%w: %s", errUpstreamEvent, ev.ErrCode)}
			return
		}
		if err := g.pass(ev); err != nil {
			a.fail = &failure{reason: ReasonCanceled, err: fmt.Errorf("dispatch: write to client: %w", err)}
			return
		}
		switch ev.Type {
		case llm.EventError:
			// The upstream's own error event reached the client: that is the
			// stream's end.
			a.fail = &failure{reason: ReasonCommitted, cause: ReasonUpstreamErrorEvent, err: fmt.Errorf("%w: %s", errUpstreamEvent, ev.ErrCode)}
			return
		case llm.EventDone:
			sawDone = true
			if g.committed {
				drain(wd)
				return
			}
		}
	}
}

// afterCommit ends the client's stream with a canonical error event after a
// failure past the commit point. A client that went away stays "canceled".
func (w *walk) afterCommit(g *gate, a *attempt, f *failure) {
	if f.reason == ReasonCanceled {
		a.fail = f
		return
	}
	cause := f.reason
	ev := llm.Event{
		Type:       llm.EventError,
		ErrCode:    "upstream_stream_interrupted",
		ErrMessage: "the upstream stream failed after it had started (" + string(cause) + ")",
	}
	if cause == ReasonShutdown {
		ev.ErrCode, ev.ErrMessage = "server_shutting_down", "the server is shutting down; send the request again"
	}
	_ = w.out.Write(ev)
	_ = w.out.Flush()
	a.fail = &failure{reason: ReasonCommitted, cause: cause, err: fmt.Errorf("%s: %w", cause, f.err)}
}

// drain reads the rest of a finished stream, briefly, so the connection can be
// reused; the watchdog cancels it when the upstream lingers.
func drain(wd *watchdog) {
	wd.timer.Reset(drainTimeout)
	wd.idle = drainTimeout
	_, _ = io.Copy(io.Discard, io.LimitReader(wd, 64<<10))
}

// mergeUsage folds a stream event's usage into u: counts are cumulative, so
// every field keeps its largest value.
func mergeUsage(u *llm.Usage, ev *llm.Usage) {
	if ev == nil {
		return
	}
	u.Input = max(u.Input, ev.Input)
	u.Output = max(u.Output, ev.Output)
	u.CacheRead = max(u.CacheRead, ev.CacheRead)
	u.CacheWrite = max(u.CacheWrite, ev.CacheWrite)
	u.Reasoning = max(u.Reasoning, ev.Reasoning)
}

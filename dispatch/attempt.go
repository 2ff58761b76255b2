package dispatch

import (
	"context"
	"io"
	"sync/atomic"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

var zeroUsage llm.Usage

// attempt is how one attempt on a target went.
type attempt struct {
	sent      bool // the request went on the wire (counts against MaxAttempts)
	fail      *failure
	status    int
	ttfb      time.Duration
	usage     llm.Usage
	resp      *llm.Response
	raw       []byte
	committed bool
}

// attempt prepares, guards and sends one call to t, then reads its answer.
func (w *walk) attempt(t Target, prov Provider, cred Credential, began time.Time) *attempt {
	e := w.e
	call, err := e.prepare(w.op, t, cred)
	if err != nil {
		return &attempt{fail: &failure{reason: ReasonPrepare, err: err}}
	}
	if err := e.guard(call, t); err != nil {
		return &attempt{fail: &failure{reason: ReasonTargetMismatch, err: err}}
	}
	actx, cancel := context.WithCancelCause(w.ctx)
	defer cancel(nil)
	first := e.cfg.FirstByteTimeout
	if !w.op.Stream {
		first = e.cfg.NonStreamTimeout
	}
	wd := startWatchdog(e.clock, cancel, first, e.cfg.StreamIdleTimeout)
	defer wd.stop()

	a := &attempt{sent: true}
	reply, err := prov.Send(actx, call)
	if err != nil {
		f := classify(w.ctx, actx, err)
		a.fail, a.status = &f, f.status
		return a
	}
	defer reply.Body.Close()
	a.status = reply.Status
	wd.r = reply.Body
	if w.op.Stream {
		w.stream(actx, t, wd, a)
	} else {
		w.buffer(actx, t, wd, contentLength(reply.Header), a)
	}
	if ft := wd.firstAt.Load(); ft != nil {
		a.ttfb = ft.Sub(began)
	}
	return a
}

// watchdog enforces the first-byte and idle timeouts of one attempt by
// cancelling its context (with errFirstByte or errStall as the cause) and
// notes when the first byte arrived.
type watchdog struct {
	clock   Clock
	timer   Timer
	idle    time.Duration
	firstAt atomic.Pointer[time.Time]
	r       io.Reader
}

func startWatchdog(clock Clock, cancel context.CancelCauseFunc, first, idle time.Duration) *watchdog {
	wd := &watchdog{clock: clock, idle: idle}
	wd.timer = clock.AfterFunc(first, func() {
		if wd.firstAt.Load() != nil {
			cancel(errStall)
		} else {
			cancel(errFirstByte)
		}
	})
	return wd
}

// Read reads the answer body and re-arms the idle timer on every byte.
func (wd *watchdog) Read(p []byte) (int, error) {
	n, err := wd.r.Read(p)
	if n > 0 {
		if wd.firstAt.Load() == nil {
			now := wd.clock.Now()
			wd.firstAt.Store(&now)
		}
		wd.timer.Reset(wd.idle)
	}
	return n, err
}

func (wd *watchdog) stop() { wd.timer.Stop() }

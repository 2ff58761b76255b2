package dispatch

import (
	"context"
	"fmt"

	"github.com/heddle-gw/heddle/llm"
)

// Buffered runs an auxiliary, non-streaming request (a handover summary, a
// title, a probe) through the same walk as Run: same retries, failover,
// breakers, caps and attempt events. The purpose comes from
// meta.Provenance.Purpose and defaults to PurposeHandover. req is encoded for
// every target's format; it is not modified.
func (e *Executor) Buffered(ctx context.Context, meta Meta, plan Plan, req *llm.Request) (*llm.Response, error) {
	if req == nil {
		return nil, fmt.Errorf("%w: nil request", ErrBadOperation)
	}
	purpose := meta.Provenance.Purpose
	if purpose == "" {
		purpose = PurposeHandover
		meta.Provenance.Purpose = purpose
	}
	op := &Operation{Purpose: purpose, Request: req}
	res, err := e.Run(ctx, meta, plan, op, nil)
	if err != nil {
		return nil, err
	}
	return res.Response, nil
}

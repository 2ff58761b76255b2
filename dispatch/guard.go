package dispatch

import (
	"fmt"

	"github.com/heddle-gw/heddle/llm"
)

// guard is the target guard: before any I/O the call must be addressed to the
// planned target's upstream model, in the URL (Call.Target, which adapters
// build the URL from) and, for formats that carry it, in the body.
func (e *Executor) guard(call *Call, planned Target) error {
	if call.Target.Upstream != planned.Upstream || call.Target.Provider != planned.Provider {
		return fmt.Errorf("%w: call addressed to %s/%s, plan says %s/%s", ErrTargetMismatch,
			call.Target.Provider, call.Target.Upstream, planned.Provider, planned.Upstream)
	}
	if planned.Format == llm.FormatGemini {
		return nil
	}
	modelOf := e.modelOf[planned.Format]
	if modelOf == nil {
		modelOf = wireModel
	}
	got, err := modelOf(call.Body)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrTargetMismatch, err)
	}
	if got != planned.Upstream {
		return fmt.Errorf("%w: body model %q, plan says %q", ErrTargetMismatch, got, planned.Upstream)
	}
	return nil
}

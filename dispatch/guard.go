package dispatch

import (
	"fmt"

	"github.com/heddle-gw/heddle/llm"
)

// guard is the target guard: before any I/O the call must be addressed to the
// planned target's upstream model, in the URL (Call.Target, which adapters
// build the URL from) and, for formats that carry it, in the body. The body's
// model is read by the planned format's codec (llm.Codec.ModelOf), the very
// reader its decoder uses, so the guard checks the model the upstream reads
// even when the body repeats the "model" member.
func (e *Executor) guard(call *Call, planned Target) error {
	if call.Target.Upstream != planned.Upstream || call.Target.Provider != planned.Provider {
		return fmt.Errorf("%w: call addressed to %s/%s, plan says %s/%s", ErrTargetMismatch,
			call.Target.Provider, call.Target.Upstream, planned.Provider, planned.Upstream)
	}
	if planned.Format == llm.FormatGemini {
		return nil
	}
	codec := e.codecs[planned.Format]
	if codec == nil {
		return fmt.Errorf("%w: %w %q", ErrTargetMismatch, errNoCodec, planned.Format)
	}
	got, err := codec.ModelOf(call.Body)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrTargetMismatch, err)
	}
	if got != planned.Upstream {
		return fmt.Errorf("%w: body model %q, plan says %q", ErrTargetMismatch, got, planned.Upstream)
	}
	return nil
}

package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/gateway/httpapi"
)

// TestClassifyRecords: what request records keep for dispatch's outcomes.
// A stream that failed after commit keeps the 200 the client saw, with a
// code that marks it failed (it used to be recorded as 500 internal.error).
func TestClassifyRecords(t *testing.T) {
	for _, tt := range []struct {
		name       string
		err        error
		wantStatus int
		wantCode   string
	}{
		{name: "committed stream failure",
			err:        fmt.Errorf("gateway: stream failed after commit: %w: openai/gpt-5: stream_stall: x", dispatch.ErrCommitted),
			wantStatus: 200, wantCode: "dispatch.stream_interrupted"},
		{name: "attempts exhausted", err: &dispatch.ExhaustedError{Attempts: 2}, wantStatus: 502, wantCode: "dispatch.attempts_exhausted"},
		{name: "unknown error", err: fmt.Errorf("boom"), wantStatus: 500, wantCode: "internal.error"},
		{name: "insufficient credits", err: fmt.Errorf("gateway: credits: %w", credits.ErrInsufficientCredits),
			wantStatus: 402, wantCode: "billing.insufficient_credits"},
		{name: "model not on the plan", err: fmt.Errorf("%w: gpt-5", gateway.ErrNotOnPlan),
			wantStatus: 403, wantCode: "billing.model_not_on_plan"},
		{name: "ledger unavailable", err: fmt.Errorf("gateway: credits: %w: db down", credits.ErrUnavailable),
			wantStatus: 503, wantCode: "billing.unavailable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, code := httpapi.Classify(tt.err)
			if status != tt.wantStatus || code != tt.wantCode {
				t.Errorf("Classify = %d %q, want %d %q", status, code, tt.wantStatus, tt.wantCode)
			}
			if want, _ := dispatch.ErrorCode(tt.err); strings.HasPrefix(tt.wantCode, "dispatch.") && want != tt.wantCode {
				t.Errorf("dispatch names it %q, the record %q", want, tt.wantCode)
			}
		})
	}
}

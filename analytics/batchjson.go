package analytics

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/heddle-gw/heddle/internal/jsonw"
)

// errJSONFloat reports a NaN or infinite float, which JSON cannot hold.
var errJSONFloat = errors.New("float is NaN or infinite")

// appendBatchJSON appends bt as encoding/json would marshal it (what
// readFrame decodes), written field by field: the batcher journals every
// row, and reflection was most of that cost. It fails, as json.Marshal
// does, on a NaN or infinite float and on a time outside years 0-9999;
// batchjson_test.go checks that it decodes to what json.Marshal's output
// decodes to, every field set.
func appendBatchJSON(b []byte, bt *batch) ([]byte, error) {
	e := jsonEnc{b: append(b, '{')}
	if len(bt.Attempts) > 0 {
		e.b = append(e.b, `"a":[`...)
		for i := range bt.Attempts {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.attempt(&bt.Attempts[i])
		}
		e.b = append(e.b, ']')
	}
	if len(bt.Requests) > 0 {
		if len(bt.Attempts) > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, `"r":[`...)
		for i := range bt.Requests {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.request(&bt.Requests[i])
		}
		e.b = append(e.b, ']')
	}
	return append(e.b, '}'), e.err
}

// jsonEnc appends one object's members; the first error sticks.
type jsonEnc struct {
	b     []byte
	first bool // no member written yet in the open object
	err   error
}

func (e *jsonEnc) key(k string) {
	if !e.first {
		e.b = append(e.b, ',')
	}
	e.first = false
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}

func (e *jsonEnc) str(k, v string) { e.key(k); e.b = jsonw.AppendString(e.b, v) }
func (e *jsonEnc) int(k string, v int64) {
	e.key(k)
	e.b = strconv.AppendInt(e.b, v, 10)
}
func (e *jsonEnc) bool(k string, v bool) { e.key(k); e.b = strconv.AppendBool(e.b, v) }

func (e *jsonEnc) float(k string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		e.err = firstErr(e.err, errJSONFloat)
	}
	e.key(k)
	e.b = jsonw.AppendFloat(e.b, v)
}

func (e *jsonEnc) time(k string, t time.Time) {
	e.key(k)
	if y := t.Year(); y < 0 || y > 9999 {
		e.err = firstErr(e.err, errors.New("time year outside [0,9999]"))
	}
	e.b = append(e.b, '"')
	e.b = t.AppendFormat(e.b, time.RFC3339Nano)
	e.b = append(e.b, '"')
}

func firstErr(old, err error) error {
	if old != nil {
		return old
	}
	return err
}

func (e *jsonEnc) attempt(a *Attempt) {
	e.b, e.first = append(e.b, '{'), true
	e.str("EventID", a.EventID)
	e.time("Time", a.Time)
	e.str("OrgID", a.OrgID)
	e.str("KeyID", a.KeyID)
	e.str("RequestID", a.RequestID)
	e.str("OperationID", a.OperationID)
	e.str("Purpose", a.Purpose)
	e.str("PolicyID", a.PolicyID)
	e.str("BundleID", a.BundleID)
	e.str("BundleRevision", a.BundleRevision)
	e.int("AttemptIndex", int64(a.AttemptIndex))
	e.str("Model", a.Model)
	e.str("Provider", a.Provider)
	e.str("Upstream", a.Upstream)
	e.str("CredentialID", a.CredentialID)
	e.str("Outcome", a.Outcome)
	e.str("Reason", a.Reason)
	e.int("Status", int64(a.Status))
	e.float("LatencyMs", a.LatencyMs)
	e.float("TTFBMs", a.TTFBMs)
	e.int("InputTokens", a.InputTokens)
	e.int("OutputTokens", a.OutputTokens)
	e.int("CacheRead", a.CacheRead)
	e.int("CacheWrite", a.CacheWrite)
	e.int("Reasoning", a.Reasoning)
	e.int("CostMicros", a.CostMicros)
	e.bool("Stream", a.Stream)
	e.b = append(e.b, '}')
}

func (e *jsonEnc) request(r *Request) {
	e.b, e.first = append(e.b, '{'), true
	e.str("EventID", r.EventID)
	e.time("Time", r.Time)
	e.str("RequestID", r.RequestID)
	e.str("OrgID", r.OrgID)
	e.str("KeyID", r.KeyID)
	e.str("User", r.User)
	e.str("Session", r.Session)
	e.str("Format", r.Format)
	e.str("RequestedModel", r.RequestedModel)
	e.str("ServedModel", r.ServedModel)
	e.str("Provider", r.Provider)
	e.str("RouteKind", r.RouteKind)
	e.str("Decision", r.Decision)
	e.bool("CacheHit", r.CacheHit)
	e.bool("Stream", r.Stream)
	e.bool("Fallback", r.Fallback)
	e.int("Attempts", int64(r.Attempts))
	e.int("InputTokens", r.InputTokens)
	e.int("OutputTokens", r.OutputTokens)
	e.int("CacheRead", r.CacheRead)
	e.int("CacheWrite", r.CacheWrite)
	e.int("Reasoning", r.Reasoning)
	e.int("CostMicros", r.CostMicros)
	e.int("BaselineMicros", r.BaselineMicros)
	e.int("SavingsMicros", r.SavingsMicros)
	e.float("LatencyMs", r.LatencyMs)
	e.float("TTFBMs", r.TTFBMs)
	e.int("Status", int64(r.Status))
	e.str("ErrorCode", r.ErrorCode)
	e.str("Tags", r.Tags)
	e.str("BaselineModel", r.BaselineModel)
	e.str("Candidates", r.Candidates)
	e.b = append(e.b, '}')
}

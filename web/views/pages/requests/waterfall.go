package requests

import (
	"math"
	"strconv"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web/views/components"
)

// Waterfall geometry, in SVG user units.
const (
	wfLabel  = 300 // the left column: target and outcome
	wfPlot   = 600 // the time axis
	wfRow    = 26
	wfTop    = 22 // room for the axis labels
	wfMinBar = 3
)

// WaterfallBar is one attempt on the time axis: it started StartMs after
// the request arrived and took DurMs (0 for a skipped target); GapMs is the
// idle time since the previous attempt ended (a retry's backoff, or the
// time spent resolving the next target).
type WaterfallBar struct {
	EventID  string
	Label    string // model, provider / upstream
	Outcome  string
	Reason   string
	StartMs  float64
	DurMs    float64
	GapMs    float64
	Retry    bool // same target as the previous attempt: the gap is a backoff
	Index    int
	TTFBMs   float64
	HTTPCode int
}

// Waterfall is a request's attempts on one time axis.
type Waterfall struct {
	Bars    []WaterfallBar
	TotalMs float64 // the axis' length: the request's latency or the last attempt's end
}

// NewWaterfall lays out tl's attempts (in timeline order) against the
// request's arrival (the first attempt's start when the request row is
// missing). Attempts are recorded when they end: an attempt started at its
// time minus its latency.
func NewWaterfall(tl analytics.RequestTimeline) Waterfall {
	var w Waterfall
	if len(tl.Attempts) == 0 {
		return w
	}
	start := func(a analytics.Attempt) float64 { return float64(a.Time.UnixMilli()) - a.LatencyMs }
	origin := math.Inf(1)
	for _, a := range tl.Attempts {
		origin = math.Min(origin, start(a))
	}
	if r := tl.Request; r != nil {
		origin = math.Min(origin, float64(r.Time.UnixMilli()))
		w.TotalMs = r.LatencyMs
	}
	prevEnd, prevKey := 0.0, ""
	for i, a := range tl.Attempts {
		b := WaterfallBar{
			EventID: a.EventID, Label: a.Model + " · " + a.Provider + " / " + a.Upstream, Outcome: a.Outcome,
			Reason: a.Reason, StartMs: start(a) - origin, DurMs: a.LatencyMs, Index: a.AttemptIndex, TTFBMs: a.TTFBMs,
			HTTPCode: a.Status,
		}
		key := a.Provider + "|" + a.Upstream
		if i > 0 {
			b.GapMs = math.Max(0, b.StartMs-prevEnd)
			b.Retry = key == prevKey && a.Outcome != "skipped"
		}
		end := b.StartMs + b.DurMs
		prevEnd, prevKey = math.Max(prevEnd, end), key
		w.TotalMs = math.Max(w.TotalMs, end)
		w.Bars = append(w.Bars, b)
	}
	w.TotalMs = math.Max(w.TotalMs, 1)
	return w
}

func (w Waterfall) x(ms float64) int { return wfLabel + int(math.Round(ms/w.TotalMs*wfPlot)) }

// barX and barW are the bar's left edge and width.
func (w Waterfall) barX(b WaterfallBar) string { return strconv.Itoa(w.x(b.StartMs)) }
func (w Waterfall) barW(b WaterfallBar) string {
	return strconv.Itoa(max(w.x(b.StartMs+b.DurMs)-w.x(b.StartMs), wfMinBar))
}

// gapX1 and gapX2 bound the gap before b.
func (w Waterfall) gapX1(b WaterfallBar) string { return strconv.Itoa(w.x(b.StartMs - b.GapMs)) }
func (w Waterfall) gapX2(b WaterfallBar) string { return w.barX(b) }

func rowY(i int) int               { return wfTop + i*wfRow }
func (w Waterfall) height() string { return strconv.Itoa(wfTop + len(w.Bars)*wfRow + 4) }
func (w Waterfall) width() string  { return strconv.Itoa(wfLabel + wfPlot + 70) }
func itoaY(i, d int) string        { return strconv.Itoa(rowY(i) + d) }

// ticks are the axis labels: 0, a quarter, half, three quarters and the end.
func (w Waterfall) ticks() [][2]string {
	out := make([][2]string, 5)
	for i := range out {
		ms := w.TotalMs * float64(i) / 4
		label := components.Millis(ms)
		if i == 0 {
			label = "0 ms"
		}
		out[i] = [2]string{strconv.Itoa(w.x(ms)), label}
	}
	return out
}

// textLeft reports whether b's text goes before the bar (it ends in the
// last quarter of the axis, where text after it would run off).
func (w Waterfall) textLeft(b WaterfallBar) bool { return b.StartMs+b.DurMs > w.TotalMs*0.7 }

// textX and textAnchor place b's text after its bar, or before it.
func (w Waterfall) textX(b WaterfallBar) string {
	if w.textLeft(b) {
		return strconv.Itoa(w.x(b.StartMs) - 4)
	}
	return strconv.Itoa(w.x(b.StartMs+b.DurMs) + max(wfMinBar-(w.x(b.StartMs+b.DurMs)-w.x(b.StartMs)), 0) + 4)
}

func (w Waterfall) textAnchor(b WaterfallBar) string {
	if w.textLeft(b) {
		return "end"
	}
	return "start"
}

func barClass(b WaterfallBar) string {
	switch b.Outcome {
	case "served":
		return "wf-served"
	case "skipped":
		return "wf-skipped"
	}
	return "wf-failed"
}

// barText is what follows the bar: outcome, reason, status and timing.
func barText(b WaterfallBar) string {
	s := b.Outcome
	if b.Reason != "" {
		s += " " + b.Reason
	}
	if b.HTTPCode != 0 {
		s += " " + strconv.Itoa(b.HTTPCode)
	}
	if b.Outcome != "skipped" {
		s += " · " + components.Millis(b.DurMs)
	}
	return s
}

// gapText names the gap before b.
func gapText(b WaterfallBar) string {
	if b.Retry {
		return "backoff " + components.Millis(b.GapMs)
	}
	return "gap " + components.Millis(b.GapMs)
}

// showGap is true for gaps worth drawing (a millisecond or more).
func showGap(b WaterfallBar) bool { return b.GapMs >= 1 }

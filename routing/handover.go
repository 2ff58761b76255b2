package routing

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/heddle-gw/heddle/llm"
)

// Handover defaults.
const (
	DefaultHandoverMinMessages     = 12
	DefaultHandoverMinTokens       = 16000
	DefaultHandoverKeepTurns       = 2
	DefaultHandoverTimeout         = 20 * time.Second
	DefaultHandoverMaxSummaryBytes = 16 << 10
)

// Summarizer condenses older turns of a conversation. The gateway implements
// it through the dispatch boundary's buffered adapter with a cheap model,
// bounded output and a timeout (see SummaryRequest). Summarize must not
// modify older; it blocks until done or ctx ends.
type Summarizer interface {
	Summarize(ctx context.Context, older []llm.Message) (string, error)
}

// SummarizerFunc adapts a function to Summarizer.
type SummarizerFunc func(ctx context.Context, older []llm.Message) (string, error)

// Summarize calls f.
func (f SummarizerFunc) Summarize(ctx context.Context, older []llm.Message) (string, error) {
	return f(ctx, older)
}

// HandoverConfig tunes Handover. Zero values take the defaults.
type HandoverConfig struct {
	// A history is summarised only when it has more than MinMessages
	// messages or more than MinTokens estimated tokens.
	MinMessages int
	MinTokens   int
	// KeepTurns is how many of the latest turns are kept verbatim (a turn
	// starts at a user message with user-authored content).
	KeepTurns int
	// Timeout bounds the summarizer, even one that ignores its context.
	Timeout time.Duration
	// MaxSummaryBytes caps the summary kept.
	MaxSummaryBytes int
}

func (c HandoverConfig) withDefaults() HandoverConfig {
	if c.MinMessages <= 0 {
		c.MinMessages = DefaultHandoverMinMessages
	}
	if c.MinTokens <= 0 {
		c.MinTokens = DefaultHandoverMinTokens
	}
	if c.KeepTurns <= 0 {
		c.KeepTurns = DefaultHandoverKeepTurns
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultHandoverTimeout
	}
	if c.MaxSummaryBytes <= 0 {
		c.MaxSummaryBytes = DefaultHandoverMaxSummaryBytes
	}
	return c
}

// Handover outcomes, a closed vocabulary (HandoverReport.Reason).
const (
	HandoverSummarized   = "summarized"
	HandoverShortHistory = "short_history" // under both thresholds
	HandoverNothingOlder = "nothing_older" // everything is within the kept turns
	HandoverFailed       = "summarizer_failed"
	HandoverTimeout      = "summarizer_timeout"
	HandoverEmpty        = "empty_summary"
)

// HandoverReport says what Handover did. Token counts are estimates.
type HandoverReport struct {
	Applied bool
	Reason  string
	// Err is the summarizer's failure (wrapping ErrSummary), nil otherwise.
	Err            error
	MessagesBefore int
	MessagesAfter  int
	Summarized     int // messages replaced by the summary
	TokensBefore   int
	TokensAfter    int
	SummaryBytes   int
	Latency        time.Duration
}

// Handover shortens a long history before a switch: the messages before the
// last cfg.KeepTurns turns are summarised by s and replaced by one user
// message holding the summary (system and developer messages among them stay,
// ahead of it). The latest user turn is always kept; a tool call and its
// result are never split (the cut moves back to the assistant message that
// made any call a kept result answers). On a short history, a nil summarizer,
// or any summarizer failure, timeout or empty summary, req itself is returned
// unchanged. req is never modified; the returned request shares the kept
// messages' content with it.
func Handover(ctx context.Context, req *llm.Request, s Summarizer, cfg HandoverConfig) (*llm.Request, HandoverReport) {
	cfg = cfg.withDefaults()
	if req == nil {
		return nil, HandoverReport{Reason: HandoverNothingOlder}
	}
	split := HandoverSplitOf(req, cfg)
	rep := HandoverReport{MessagesBefore: len(req.Messages), MessagesAfter: len(req.Messages),
		TokensBefore: split.OlderTokens + split.KeptTokens, TokensAfter: split.OlderTokens + split.KeptTokens}
	switch {
	case !split.Long:
		rep.Reason = HandoverShortHistory
		return req, rep
	case split.OlderMessages < 2:
		rep.Reason = HandoverNothingOlder
		return req, rep
	case s == nil:
		rep.Reason, rep.Err = HandoverFailed, fmt.Errorf("%w: no summarizer", ErrSummary)
		return req, rep
	}
	older := make([]llm.Message, 0, split.Cut)
	var keptSystem []llm.Message
	for _, m := range req.Messages[:split.Cut] {
		if m.Role == llm.RoleSystem || m.Role == llm.RoleDeveloper {
			keptSystem = append(keptSystem, m)
			continue
		}
		older = append(older, cloneMessage(m))
	}
	start := time.Now()
	summary, err := summarizeWithTimeout(ctx, s, older, cfg.Timeout)
	rep.Latency = time.Since(start)
	summary = strings.TrimSpace(summary)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		rep.Reason, rep.Err = HandoverTimeout, fmt.Errorf("%w: timed out after %v: %w", ErrSummary, cfg.Timeout, err)
		return req, rep
	case err != nil:
		rep.Reason, rep.Err = HandoverFailed, fmt.Errorf("%w: %w", ErrSummary, err)
		return req, rep
	case summary == "":
		rep.Reason, rep.Err = HandoverEmpty, fmt.Errorf("%w: empty summary", ErrSummary)
		return req, rep
	}
	summary = cutBytes(summary, cfg.MaxSummaryBytes)
	msgs := make([]llm.Message, 0, len(keptSystem)+1+len(req.Messages)-split.Cut)
	msgs = append(msgs, keptSystem...)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: summaryText(len(older), summary)}}})
	msgs = append(msgs, req.Messages[split.Cut:]...)
	out := *req
	out.Messages = msgs
	rep.Applied, rep.Reason = true, HandoverSummarized
	rep.Summarized = len(older)
	rep.MessagesAfter = len(msgs)
	rep.SummaryBytes = len(summary)
	rep.TokensAfter = estimateTokens(msgs)
	return &out, rep
}

// summaryText is the user message that stands in for the summarised turns.
func summaryText(n int, summary string) string {
	return fmt.Sprintf("<handover-summary>\nThe first %d messages of this conversation were condensed into the notes below "+
		"when it moved to another model. Treat them as the conversation so far.\n\n%s\n</handover-summary>", n, summary)
}

// summarizeWithTimeout runs s within d, returning context.DeadlineExceeded
// (wrapped) even if s ignores ctx. A late answer is discarded.
func summarizeWithTimeout(ctx context.Context, s Summarizer, older []llm.Message, d time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("summarizer panicked: %v", r)}
			}
		}()
		text, err := s.Summarize(ctx, older)
		done <- result{text, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() != nil {
			return "", fmt.Errorf("%w: %w", ctx.Err(), r.err)
		}
		return r.text, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// cutBytes returns s cut to at most n bytes on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cloneMessage deep-copies m so a summarizer cannot reach the request.
func cloneMessage(m llm.Message) llm.Message {
	m.Content = cloneParts(m.Content)
	return m
}

func cloneParts(ps []llm.Part) []llm.Part {
	if ps == nil {
		return nil
	}
	out := make([]llm.Part, len(ps))
	for i, p := range ps {
		p.Result = cloneParts(p.Result)
		out[i] = p
	}
	return out
}

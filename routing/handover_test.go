package routing_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

// longSession is a 15-message coding session of four turns (user-authored
// messages at 0, 6, 10 and 14) with tool loops in between.
func longSession() *llm.Request {
	return &llm.Request{
		Model: "sonnet", System: []llm.Part{text(ccMain)}, Tools: bashTool, MaxTokens: 4096,
		Messages: []llm.Message{
			user(text("refactor the parser into a package")),                               // 0 turn 1
			assistant(text("Looking."), call("t1", "Bash", `{"cmd":"ls parser"}`)),         // 1
			user(result("t1", "lexer.go parser.go")),                                       // 2
			assistant(call("t2", "Bash", `{"cmd":"go test ./..."}`)),                       // 3
			user(result("t2", "ok")),                                                       // 4
			assistant(text("Moved the parser; tests pass.")),                               // 5
			user(text("now rename Parse to ParseFile")),                                    // 6 turn 2
			assistant(call("t3", "Bash", `{"cmd":"gofmt -r 'Parse -> ParseFile' -w ."}`)),  // 7
			user(result("t3", "")),                                                         // 8
			assistant(text("Renamed.")),                                                    // 9
			user(text("<system-reminder>todo</system-reminder>"), text("add a fuzz test")), // 10 turn 3
			assistant(call("t4", "Bash", `{"cmd":"go test -fuzz=."}`)),                     // 11
			user(result("t4", "fuzz: elapsed 10s, ok")),                                    // 12
			assistant(text("Added FuzzParseFile.")),                                        // 13
			user(text("commit it")),                                                        // 14 turn 4
		},
	}
}

func snapshot(t *testing.T, r *llm.Request) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHandoverSummarizes(t *testing.T) {
	req := longSession()
	before := snapshot(t, req)
	s := &routingtest.Summarizer{Text: "  The user is refactoring the parser; Parse was renamed ParseFile.  ", Mutate: true}
	out, rep := routing.Handover(context.Background(), req, s, routing.HandoverConfig{})

	if got := snapshot(t, req); string(got) != string(before) {
		t.Fatal("Handover (or its summarizer) modified the caller's request")
	}
	if !rep.Applied || rep.Reason != routing.HandoverSummarized || rep.Err != nil {
		t.Fatalf("report = %+v, want applied, summarized, no error", rep)
	}
	if rep.MessagesBefore != 15 || rep.MessagesAfter != 6 || rep.Summarized != 10 ||
		rep.SummaryBytes != len("The user is refactoring the parser; Parse was renamed ParseFile.") {
		t.Fatalf("report counts = %+v; want 15 -> 6, 10 summarised, trimmed summary size", rep)
	}
	if rep.TokensAfter >= rep.TokensBefore || rep.TokensAfter <= 0 {
		t.Fatalf("tokens %d -> %d, want a smaller positive estimate", rep.TokensBefore, rep.TokensAfter)
	}
	calls := s.Calls()
	if len(calls) != 1 || len(calls[0]) != 10 {
		t.Fatalf("summarizer calls = %d (first with %d messages), want 1 with the 10 older messages", len(calls), len(calls[0]))
	}
	if out == req || len(out.Messages) != 6 {
		t.Fatalf("output has %d messages (same pointer: %v), want a new request with 6", len(out.Messages), out == req)
	}
	sum := out.Messages[0]
	if sum.Role != llm.RoleUser || len(sum.Content) != 1 ||
		!strings.Contains(sum.Content[0].Text, "The user is refactoring the parser; Parse was renamed ParseFile.") ||
		!strings.Contains(sum.Content[0].Text, "first 10 messages") || !strings.HasPrefix(sum.Content[0].Text, "<handover-summary>") {
		t.Fatalf("summary message = %+v", sum)
	}
	if want := longSession().Messages[10:]; !reflect.DeepEqual(out.Messages[1:], want) {
		t.Fatalf("kept messages differ from the last two turns:\n%+v\nwant\n%+v", out.Messages[1:], want)
	}
	// Everything but the messages is carried over.
	if out.Model != "sonnet" || out.MaxTokens != 4096 || len(out.Tools) != 1 || out.System[0].Text != ccMain {
		t.Fatalf("request fields not carried over: %+v", out)
	}
}

func TestHandoverKeepsFullHistoryOnFailure(t *testing.T) {
	boom := errors.New("upstream 529")
	tests := []struct {
		name   string
		s      routing.Summarizer
		cfg    routing.HandoverConfig
		reason string
		is     []error
	}{
		{"summarizer error", &routingtest.Summarizer{Err: boom}, routing.HandoverConfig{},
			routing.HandoverFailed, []error{routing.ErrSummary, boom}},
		{"timeout, summarizer ignores ctx", &routingtest.Summarizer{Text: "late", Delay: 300 * time.Millisecond, IgnoreContext: true},
			routing.HandoverConfig{Timeout: 20 * time.Millisecond}, routing.HandoverTimeout,
			[]error{routing.ErrSummary, context.DeadlineExceeded}},
		{"timeout, summarizer honours ctx", &routingtest.Summarizer{Text: "late", Delay: 300 * time.Millisecond},
			routing.HandoverConfig{Timeout: 20 * time.Millisecond}, routing.HandoverTimeout,
			[]error{routing.ErrSummary, context.DeadlineExceeded}},
		{"empty summary", &routingtest.Summarizer{Text: " \n\t"}, routing.HandoverConfig{},
			routing.HandoverEmpty, []error{routing.ErrSummary}},
		{"nil summarizer", nil, routing.HandoverConfig{}, routing.HandoverFailed, []error{routing.ErrSummary}},
		{"panicking summarizer", routing.SummarizerFunc(func(context.Context, []llm.Message) (string, error) {
			panic("bug")
		}), routing.HandoverConfig{}, routing.HandoverFailed, []error{routing.ErrSummary}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := longSession()
			before := snapshot(t, req)
			start := time.Now()
			out, rep := routing.Handover(context.Background(), req, tt.s, tt.cfg)
			if out != req {
				t.Fatal("a failed handover returned another request")
			}
			if got := snapshot(t, out); string(got) != string(before) {
				t.Fatalf("a failed handover changed the request:\n%s\nwant\n%s", got, before)
			}
			if rep.Applied || rep.Reason != tt.reason || rep.MessagesAfter != 15 || rep.Summarized != 0 {
				t.Fatalf("report = %+v, want not applied, %s, 15 messages kept", rep, tt.reason)
			}
			for _, want := range tt.is {
				if !errors.Is(rep.Err, want) {
					t.Fatalf("report error %v does not wrap %v", rep.Err, want)
				}
			}
			if time.Since(start) > 250*time.Millisecond {
				t.Fatalf("Handover took %v: the timeout did not bound the summarizer", time.Since(start))
			}
		})
	}
}

func TestHandoverLeavesShortHistories(t *testing.T) {
	short := &llm.Request{Messages: []llm.Message{user(text("a")), assistant(text("b")), user(text("c"))}}
	oneTurn := &llm.Request{Messages: []llm.Message{user(text("run the whole suite"))}}
	for i := range 8 {
		id := string(rune('a' + i))
		oneTurn.Messages = append(oneTurn.Messages, assistant(call(id, "Bash", `{}`)), user(result(id, "ok")))
	}
	for _, tt := range []struct {
		name   string
		req    *llm.Request
		reason string
	}{
		{"short", short, routing.HandoverShortHistory},
		{"long but one turn", oneTurn, routing.HandoverNothingOlder},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &routingtest.Summarizer{Text: "x"}
			out, rep := routing.Handover(context.Background(), tt.req, s, routing.HandoverConfig{})
			if out != tt.req || rep.Applied || rep.Reason != tt.reason || len(s.Calls()) != 0 {
				t.Fatalf("report = %+v, summarizer calls %d; want unchanged, %s, no call", rep, len(s.Calls()), tt.reason)
			}
		})
	}
}

func TestHandoverSplit(t *testing.T) {
	withPair := longSession()
	// Turn 3's message also answers a call made in message 9, and message 12
	// answers a call made back in message 7: the cut must move back to 7.
	withPair.Messages[9] = assistant(text("Renamed."), call("t9", "Bash", `{"cmd":"git diff"}`))
	withPair.Messages[10] = user(result("t9", "diff..."), text("add a fuzz test"))
	withPair.Messages[7] = assistant(call("t3", "Bash", `{}`), call("t7", "Bash", `{}`))
	withPair.Messages[12] = user(result("t4", "ok"), result("t7", "late result"))

	withDev := longSession()
	withDev.Messages = append([]llm.Message{{Role: llm.RoleDeveloper, Content: []llm.Part{text("be terse")}}}, withDev.Messages...)

	tests := []struct {
		name           string
		req            *llm.Request
		cfg            routing.HandoverConfig
		long           bool
		cut, olderMsgs int
	}{
		{"two turns kept", longSession(), routing.HandoverConfig{}, true, 10, 10},
		{"one turn kept", longSession(), routing.HandoverConfig{KeepTurns: 1}, true, 14, 14},
		{"all turns kept", longSession(), routing.HandoverConfig{KeepTurns: 4}, true, 0, 0},
		{"tool pairs never split", withPair, routing.HandoverConfig{}, true, 7, 7},
		{"developer message not counted", withDev, routing.HandoverConfig{}, true, 11, 10},
		{"under the message threshold", longSession(), routing.HandoverConfig{MinMessages: 15, MinTokens: 1 << 20}, false, 10, 10},
		{"over the token threshold", longSession(), routing.HandoverConfig{MinMessages: 100, MinTokens: 50}, true, 10, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := routing.HandoverSplitOf(tt.req, tt.cfg)
			if sp.Long != tt.long || sp.Cut != tt.cut || sp.OlderMessages != tt.olderMsgs {
				t.Fatalf("split = %+v, want long %v, cut %d, %d older", sp, tt.long, tt.cut, tt.olderMsgs)
			}
			if tt.cut > 0 && sp.OlderTokens <= 0 || sp.KeptTokens <= 0 {
				t.Fatalf("token estimates %d/%d", sp.OlderTokens, sp.KeptTokens)
			}
		})
	}

	t.Run("summary replaces only whole pairs", func(t *testing.T) {
		out, rep := routing.Handover(context.Background(), withPair, &routingtest.Summarizer{Text: "s"}, routing.HandoverConfig{})
		if !rep.Applied || len(out.Messages) != 1+8 {
			t.Fatalf("report %+v, %d messages; want applied with summary + 8 kept", rep, len(out.Messages))
		}
		calls := map[string]bool{}
		for _, m := range out.Messages {
			for _, p := range m.Content {
				if p.Type == llm.PartToolCall {
					calls[p.ID] = true
				}
				if p.Type == llm.PartToolResult && !calls[p.ID] {
					t.Fatalf("result %s kept without its call", p.ID)
				}
			}
		}
	})

	t.Run("developer message kept ahead of the summary", func(t *testing.T) {
		out, rep := routing.Handover(context.Background(), withDev, &routingtest.Summarizer{Text: "s"}, routing.HandoverConfig{})
		if !rep.Applied || out.Messages[0].Role != llm.RoleDeveloper || out.Messages[1].Role != llm.RoleUser ||
			!strings.Contains(out.Messages[1].Content[0].Text, "first 10 messages") || len(out.Messages) != 7 {
			t.Fatalf("messages = %+v", out.Messages)
		}
	})
}

func TestHandoverCapsSummary(t *testing.T) {
	out, rep := routing.Handover(context.Background(), longSession(),
		&routingtest.Summarizer{Text: strings.Repeat("é", 20)}, routing.HandoverConfig{MaxSummaryBytes: 11})
	if !rep.Applied || rep.SummaryBytes != 10 {
		t.Fatalf("report = %+v, want a 10-byte summary (5 runes under the 11-byte cap)", rep)
	}
	if txt := out.Messages[0].Content[0].Text; !utf8.ValidString(txt) || !strings.Contains(txt, "ééééé\n") {
		t.Fatalf("summary text = %q", txt)
	}
}

func TestHandoverCost(t *testing.T) {
	sp := routing.HandoverSplit{OlderMessages: 10, OlderTokens: 80000}
	// 80000 x 0.25e-6 + 1024 x 2e-6 = 0.02 + 0.002048
	if got := routing.HandoverCost(sp, catalog.Price{Input: 0.25, Output: 2}, 1024); got < 0.022047999 || got > 0.022048001 {
		t.Fatalf("HandoverCost = %v, want 0.022048", got)
	}
	if got := routing.HandoverCost(routing.HandoverSplit{}, catalog.Price{Input: 1, Output: 1}, 1024); got != 0 {
		t.Fatalf("HandoverCost with nothing older = %v, want 0", got)
	}
}

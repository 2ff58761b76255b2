package responses

import (
	"io"
	"sort"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/sse"

	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// outEvent is one Responses stream event as written.
type outEvent struct {
	Type           string       `json:"type"`
	SequenceNumber int          `json:"sequence_number"`
	Response       *outResponse `json:"response,omitempty"`
	OutputIndex    *int         `json:"output_index,omitempty"`
	ItemID         string       `json:"item_id,omitempty"`
	ContentIndex   *int         `json:"content_index,omitempty"`
	SummaryIndex   *int         `json:"summary_index,omitempty"`
	Item           any          `json:"item,omitempty"`
	Part           any          `json:"part,omitempty"`
	Delta          *string      `json:"delta,omitempty"`
	Text           *string      `json:"text,omitempty"`
	Arguments      *string      `json:"arguments,omitempty"`
}

// encBlock is a canonical block being written as an output item.
type encBlock struct {
	kind      llm.PartType
	out       int // output index
	itemID    string
	callID    string
	name      string
	text      strings.Builder
	summary   bool // a reasoning summary part was opened
	encrypted string
	dropped   bool // no Responses form: its events are ignored
}

// streamEncoder writes canonical events as a Responses SSE stream Codex
// accepts: response.created first, every item added before its deltas, done
// events with the full text or arguments, and a terminal event
// (response.completed, .incomplete or .failed) carrying the whole response.
type streamEncoder struct {
	w        io.Writer
	seq      int
	started  bool
	finished bool
	ids      idGen
	model    string
	start    *llm.Usage
	usage    *llm.Usage
	stop     llm.StopReason
	blocks   map[int]*encBlock
	nextOut  int
	items    map[int]any // output items whose output_item.done was written
	waiting  map[int]any // done items held until every earlier item is done
	nextDone int
	pending  *encBlock // a closed reasoning item that may still get encrypted content
	err      error
}

func newStreamEncoder(w io.Writer) *streamEncoder {
	return &streamEncoder{w: w, ids: newIDs(""), blocks: map[int]*encBlock{}, items: map[int]any{}, waiting: map[int]any{}}
}

// Encode writes the frames of one canonical event. Events after the
// terminal one, and pings, write nothing.
func (s *streamEncoder) Encode(e llm.Event) error {
	if s.finished || s.err != nil {
		return s.err
	}
	switch e.Type {
	case llm.EventMessageStart:
		if e.Usage != nil {
			u := *e.Usage
			s.start = &u
		}
		s.begin(e.ID, e.Model)
	case llm.EventBlockStart:
		s.openBlock(e.Index, e.Block)
	case llm.EventTextDelta, llm.EventToolDelta, llm.EventThinkDelta:
		s.delta(e)
	case llm.EventBlockStop:
		s.closeBlock(e.Index)
	case llm.EventMessageDelta:
		s.stop = e.StopReason
		if e.Usage != nil {
			u := *e.Usage
			s.usage = &u
		}
	case llm.EventDone:
		s.complete()
	case llm.EventError:
		s.failed(e.ErrMessage, e.ErrCode)
	}
	return s.err
}

// write sends one event frame.
func (s *streamEncoder) write(typ string, ev outEvent) {
	if s.err != nil {
		return
	}
	ev.Type, ev.SequenceNumber = typ, s.seq
	s.seq++
	data, err := wirejson.Marshal(ev)
	if err != nil {
		s.err = err
		return
	}
	s.err = sse.WriteFrame(s.w, typ, data)
}

// response is the response object as known so far.
func (s *streamEncoder) response(status string) *outResponse {
	return &outResponse{ID: s.ids.response(), Object: "response", Status: status, Model: s.model, Output: []any{}}
}

// begin writes response.created and response.in_progress once.
func (s *streamEncoder) begin(id, model string) {
	if s.started {
		return
	}
	s.started = true
	s.ids, s.model = newIDs(id), model
	s.write("response.created", outEvent{Response: s.response("in_progress")})
	s.write("response.in_progress", outEvent{Response: s.response("in_progress")})
}

// openBlock writes output_item.added (and content_part.added) for a block.
func (s *streamEncoder) openBlock(idx int, p *llm.Part) {
	s.begin("", "")
	if p == nil {
		p = &llm.Part{Type: llm.PartText}
	}
	if p.Type == llm.PartRedactedThinking && p.Family == family && s.pending != nil && s.pending.encrypted == "" {
		s.pending.encrypted = p.Data
		s.blocks[idx] = &encBlock{dropped: true}
		return
	}
	s.flushPending()
	b := &encBlock{kind: p.Type, out: s.nextOut}
	switch {
	case p.Type == llm.PartText:
		b.itemID = s.ids.item("msg", b.out)
		s.write("response.output_item.added", outEvent{OutputIndex: intp(b.out), Item: messageItem(b.itemID, "in_progress", nil)})
		s.write("response.content_part.added", outEvent{ItemID: b.itemID, OutputIndex: intp(b.out), ContentIndex: intp(0), Part: outputText("")})
	case p.Type == llm.PartToolCall:
		b.itemID, b.callID, b.name = s.ids.item("fc", b.out), callID(p.ID, s.ids, b.out), p.Name
		s.write("response.output_item.added", outEvent{OutputIndex: intp(b.out), Item: callItem(b.itemID, "in_progress", b.callID, b.name, "")})
	case p.Type == llm.PartThinking:
		id := ""
		if p.Family == family {
			id = p.ID
		}
		b.itemID = reasoningID(id, s.ids, b.out)
		s.write("response.output_item.added", outEvent{OutputIndex: intp(b.out), Item: outReasoningItem{Type: "reasoning", ID: b.itemID, Summary: []outSummary{}}})
	case p.Type == llm.PartRedactedThinking && p.Family == family && p.Data != "":
		b.itemID, b.encrypted = reasoningID(p.ID, s.ids, b.out), p.Data
		s.write("response.output_item.added", outEvent{OutputIndex: intp(b.out), Item: outReasoningItem{Type: "reasoning", ID: b.itemID, Summary: []outSummary{}}})
	default:
		s.blocks[idx] = &encBlock{dropped: true}
		return
	}
	s.nextOut++
	s.blocks[idx] = b
}

// delta writes a text, argument or reasoning-summary delta.
func (s *streamEncoder) delta(e llm.Event) {
	b := s.blocks[e.Index]
	if b == nil {
		kind := llm.PartText
		switch e.Type {
		case llm.EventToolDelta:
			kind = llm.PartToolCall
		case llm.EventThinkDelta:
			kind = llm.PartThinking
		}
		s.openBlock(e.Index, &llm.Part{Type: kind})
		b = s.blocks[e.Index]
	}
	if b.dropped || e.Text == "" {
		return
	}
	b.text.WriteString(e.Text)
	text := e.Text
	switch b.kind {
	case llm.PartText:
		s.write("response.output_text.delta", outEvent{ItemID: b.itemID, OutputIndex: intp(b.out), ContentIndex: intp(0), Delta: &text})
	case llm.PartToolCall:
		s.write("response.function_call_arguments.delta", outEvent{ItemID: b.itemID, OutputIndex: intp(b.out), Delta: &text})
	case llm.PartThinking:
		if !b.summary {
			b.summary = true
			s.write("response.reasoning_summary_part.added", outEvent{ItemID: b.itemID, OutputIndex: intp(b.out), SummaryIndex: intp(0), Part: outSummary{Type: "summary_text", Text: ""}})
		}
		s.write("response.reasoning_summary_text.delta", outEvent{ItemID: b.itemID, OutputIndex: intp(b.out), SummaryIndex: intp(0), Delta: &text})
	}
}

// closeBlock writes a block's done events and its output_item.done (a
// reasoning item's is held back until it is known whether encrypted content
// follows).
func (s *streamEncoder) closeBlock(idx int) {
	b := s.blocks[idx]
	delete(s.blocks, idx)
	if b == nil || b.dropped {
		return
	}
	full := b.text.String()
	switch b.kind {
	case llm.PartText:
		s.write("response.output_text.done", outEvent{ItemID: b.itemID, OutputIndex: intp(b.out), ContentIndex: intp(0), Text: &full})
		s.write("response.content_part.done", outEvent{ItemID: b.itemID, OutputIndex: intp(b.out), ContentIndex: intp(0), Part: outputText(full)})
		s.itemDone(b.out, messageItem(b.itemID, "completed", []any{outputText(full)}))
	case llm.PartToolCall:
		if strings.TrimSpace(full) == "" {
			full = "{}"
		}
		s.write("response.function_call_arguments.done", outEvent{ItemID: b.itemID, OutputIndex: intp(b.out), Arguments: &full})
		s.itemDone(b.out, callItem(b.itemID, "completed", b.callID, b.name, full))
	case llm.PartThinking:
		if b.summary {
			s.write("response.reasoning_summary_text.done", outEvent{ItemID: b.itemID, OutputIndex: intp(b.out), SummaryIndex: intp(0), Text: &full})
			s.write("response.reasoning_summary_part.done", outEvent{ItemID: b.itemID, OutputIndex: intp(b.out), SummaryIndex: intp(0), Part: outSummary{Type: "summary_text", Text: full}})
		}
		s.pending = b
	case llm.PartRedactedThinking:
		s.itemDone(b.out, outReasoningItem{Type: "reasoning", ID: b.itemID, Summary: []outSummary{}, EncryptedContent: b.encrypted})
	}
}

// flushPending writes the held-back reasoning item's output_item.done.
func (s *streamEncoder) flushPending() {
	b := s.pending
	if b == nil {
		return
	}
	s.pending = nil
	item := outReasoningItem{Type: "reasoning", ID: b.itemID, Summary: []outSummary{}, EncryptedContent: b.encrypted}
	if text := b.text.String(); text != "" {
		item.Summary = []outSummary{{Type: "summary_text", Text: text}}
	}
	s.itemDone(b.out, item)
}

// itemDone writes output_item.done for an item, in output order: when
// canonical blocks overlap, a later item's done waits for the earlier ones.
func (s *streamEncoder) itemDone(out int, item any) {
	s.waiting[out] = item
	for {
		it, ok := s.waiting[s.nextDone]
		if !ok {
			return
		}
		delete(s.waiting, s.nextDone)
		s.items[s.nextDone] = it
		s.write("response.output_item.done", outEvent{OutputIndex: intp(s.nextDone), Item: it})
		s.nextDone++
	}
}

// closeAll closes every open block in index order.
func (s *streamEncoder) closeAll() {
	idx := make([]int, 0, len(s.blocks))
	for i := range s.blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		s.closeBlock(i)
	}
	s.flushPending()
}

// output lists the finished items in output order.
func (s *streamEncoder) output() []any {
	out := []any{}
	for i := range s.nextOut {
		if it, ok := s.items[i]; ok {
			out = append(out, it)
		}
	}
	return out
}

// complete writes the terminal event with the whole response.
func (s *streamEncoder) complete() {
	s.begin("", "")
	s.closeAll()
	status, incomplete, failure := statusOf(s.stop)
	r := s.response(status)
	r.IncompleteDetails, r.Error, r.Output = incomplete, failure, s.output()
	r.Usage = encodeUsage(s.finalUsage())
	typ := "response.completed"
	switch status {
	case "incomplete":
		typ = "response.incomplete"
	case "failed":
		typ = "response.failed"
	}
	s.write(typ, outEvent{Response: r})
	s.finished = true
}

// finalUsage is the message_delta usage, completed from message_start's
// input counts when the delta left them out.
func (s *streamEncoder) finalUsage() llm.Usage {
	var u llm.Usage
	if s.usage != nil {
		u = *s.usage
	}
	if s.start != nil && u.Input == 0 && u.CacheRead == 0 && u.CacheWrite == 0 {
		u.Input, u.CacheRead, u.CacheWrite = s.start.Input, s.start.CacheRead, s.start.CacheWrite
	}
	return u
}

// failed writes response.failed with the error.
func (s *streamEncoder) failed(msg, code string) {
	s.begin("", "")
	s.flushPending()
	if code == "" {
		code = "server_error"
	}
	if msg == "" {
		msg = "the upstream stream failed"
	}
	r := s.response("failed")
	r.Error, r.Output = &outError{Code: code, Message: msg}, s.output()
	s.write("response.failed", outEvent{Response: r})
	s.finished = true
}

func intp(i int) *int { return &i }

package dispatchtest

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/sse"
)

// NewStreamDecoder decodes chat.completion.chunk frames into canonical events,
// synthesising block boundaries; Raw is set on the first event of each frame.
func (ChatCodec) NewStreamDecoder(r io.Reader) llm.StreamDecoder {
	return &chatDecoder{r: sse.NewReader(r), text: -1, tool: -1}
}

type chatDecoder struct {
	r       *sse.Reader
	queue   []llm.Event
	started bool
	next    int // next block index
	text    int // open text block, -1 if none
	tool    int // open tool block, -1 if none
	stop    llm.StopReason
	done    bool
}

func (d *chatDecoder) Next() (llm.Event, error) {
	for len(d.queue) == 0 {
		if d.done {
			return llm.Event{}, io.EOF
		}
		f, err := d.r.Next()
		if err != nil {
			return llm.Event{}, err
		}
		if err := d.frame(f); err != nil {
			return llm.Event{}, err
		}
	}
	ev := d.queue[0]
	d.queue = d.queue[1:]
	return ev, nil
}

func (d *chatDecoder) closeBlocks() {
	for _, b := range []*int{&d.text, &d.tool} {
		if *b >= 0 {
			d.queue = append(d.queue, llm.Event{Type: llm.EventBlockStop, Index: *b})
			*b = -1
		}
	}
}

func (d *chatDecoder) frame(f sse.Frame) error {
	start := len(d.queue)
	defer func() {
		if len(d.queue) > start {
			d.queue[start].Raw = f.Raw
		}
	}()
	if f.IsDone() {
		d.closeBlocks()
		d.queue = append(d.queue, llm.Event{Type: llm.EventDone})
		d.done = true
		return nil
	}
	var c chatResp
	if err := json.Unmarshal(f.Data, &c); err != nil {
		return errors.Join(llm.ErrMalformed, err)
	}
	if !d.started {
		d.started = true
		d.queue = append(d.queue, llm.Event{Type: llm.EventMessageStart, ID: c.ID, Model: c.Model})
	}
	for _, ch := range c.Choices {
		if ch.Delta.Content != nil && *ch.Delta.Content != "" {
			if d.text < 0 {
				d.closeBlocks()
				d.text = d.next
				d.next++
				d.queue = append(d.queue, llm.Event{Type: llm.EventBlockStart, Index: d.text, Block: &llm.Part{Type: llm.PartText}})
			}
			d.queue = append(d.queue, llm.Event{Type: llm.EventTextDelta, Index: d.text, Text: *ch.Delta.Content})
		}
		for _, tc := range ch.Delta.ToolCalls {
			if tc.ID != "" {
				d.closeBlocks()
				d.tool = d.next
				d.next++
				d.queue = append(d.queue, llm.Event{Type: llm.EventBlockStart, Index: d.tool,
					Block: &llm.Part{Type: llm.PartToolCall, ID: tc.ID, Name: tc.Function.Name}})
			}
			if tc.Function.Arguments != "" && d.tool >= 0 {
				d.queue = append(d.queue, llm.Event{Type: llm.EventToolDelta, Index: d.tool, Text: tc.Function.Arguments})
			}
		}
		if ch.FinishReason != nil {
			d.closeBlocks()
			d.stop = chatStop(*ch.FinishReason)
			d.queue = append(d.queue, llm.Event{Type: llm.EventMessageDelta, StopReason: d.stop})
		}
	}
	if c.Usage != nil {
		d.queue = append(d.queue, llm.Event{Type: llm.EventMessageDelta, StopReason: d.stop,
			Usage: &llm.Usage{Input: c.Usage.Prompt, Output: c.Usage.Completion}})
	}
	return nil
}

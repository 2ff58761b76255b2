package llm

import "sort"

// Collector rebuilds a complete Response from a canonical event stream, so
// a streamed answer can be cached, priced or logged like a whole one. The
// zero value is ready to use; it is not safe for concurrent use.
type Collector struct {
	resp   Response
	blocks map[int]*Part
	failed bool
}

// Add folds one event into the response.
func (c *Collector) Add(e Event) {
	if c.blocks == nil {
		c.blocks = map[int]*Part{}
	}
	switch e.Type {
	case EventMessageStart:
		if e.ID != "" {
			c.resp.ID = e.ID
		}
		if e.Model != "" {
			c.resp.Model = e.Model
		}
		if e.Usage != nil {
			c.resp.Usage = *e.Usage
		}
	case EventBlockStart:
		p := Part{Type: PartText}
		if e.Block != nil {
			p = *e.Block
		}
		c.blocks[e.Index] = &p
	case EventTextDelta, EventToolDelta, EventThinkDelta:
		p := c.blocks[e.Index]
		if p == nil {
			kind := map[EventType]PartType{EventTextDelta: PartText, EventToolDelta: PartToolCall, EventThinkDelta: PartThinking}[e.Type]
			p = &Part{Type: kind}
			c.blocks[e.Index] = p
		}
		if e.Type == EventToolDelta {
			p.Arguments += e.Text
		} else {
			p.Text += e.Text
		}
		p.Signature += e.Signature
	case EventMessageDelta:
		if e.StopReason != "" {
			c.resp.StopReason = e.StopReason
			c.resp.StopSequence = e.StopSequence
		}
		if e.Usage != nil {
			c.resp.Usage = *e.Usage
		}
	case EventError:
		c.failed = true
	}
}

// Response returns the collected response and whether the stream completed
// (a stop reason arrived and no error did).
func (c *Collector) Response() (*Response, bool) {
	idx := make([]int, 0, len(c.blocks))
	for i := range c.blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	r := c.resp
	r.Content = make([]Part, 0, len(idx))
	for _, i := range idx {
		r.Content = append(r.Content, *c.blocks[i])
	}
	return &r, !c.failed && r.StopReason != ""
}

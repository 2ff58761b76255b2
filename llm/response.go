package llm

// StopReason is why the model stopped, in canonical terms.
type StopReason string

// Canonical stop reasons.
const (
	StopEnd       StopReason = "end_turn"      // natural end
	StopMaxTokens StopReason = "max_tokens"    // length limit
	StopSequence  StopReason = "stop_sequence" // a stop sequence matched
	StopToolUse   StopReason = "tool_use"      // the model called tools
	StopRefusal   StopReason = "refusal"       // content filter / refusal
	StopError     StopReason = "error"
)

// Usage counts tokens. Input excludes cached tokens: the total prompt is
// Input + CacheRead + CacheWrite. Reasoning tokens are part of Output.
type Usage struct {
	Input      int
	Output     int
	CacheRead  int
	CacheWrite int
	Reasoning  int
}

// Add returns the sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		Input:      u.Input + o.Input,
		Output:     u.Output + o.Output,
		CacheRead:  u.CacheRead + o.CacheRead,
		CacheWrite: u.CacheWrite + o.CacheWrite,
		Reasoning:  u.Reasoning + o.Reasoning,
	}
}

// Response is the canonical form of a complete (non-streaming) answer.
type Response struct {
	ID         string
	Model      string
	Content    []Part // text, thinking and tool_call parts, in order
	StopReason StopReason
	// StopSequence is the matched stop sequence, when StopReason is StopSequence.
	StopSequence string
	Usage        Usage
	// Created is the unix time the upstream reported, 0 if none.
	Created int64
}

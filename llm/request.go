package llm

import "encoding/json"

// Role is the author of a message.
type Role string

// Message roles.
const (
	RoleSystem    Role = "system"
	RoleDeveloper Role = "developer"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Request is the canonical form of one inference request, whatever format it
// arrived in. System and developer instructions are kept in System (in order);
// Messages holds the conversation.
type Request struct {
	Model    string
	System   []Part // system/developer instructions, text parts (with cache marks)
	Messages []Message
	Tools    []Tool
	// ToolChoice is nil when the caller did not say.
	ToolChoice *ToolChoice
	// ParallelToolCalls is nil when the caller did not say.
	ParallelToolCalls *bool

	MaxTokens   int      // 0: not set
	Temperature *float64 // nil: not set
	TopP        *float64
	TopK        *int
	Stop        []string
	Seed        *int64

	// ResponseFormat asks for JSON output; nil means plain text.
	ResponseFormat *ResponseFormat
	// Thinking configures extended thinking / reasoning; nil means default.
	Thinking *Thinking

	Stream bool
	// StreamUsage asks for usage in the stream (OpenAI stream_options.include_usage).
	StreamUsage bool

	// User is the caller's end-user id (OpenAI user, Anthropic metadata.user_id).
	User     string
	Metadata map[string]string
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role
	Content []Part
	// Name is an optional participant name (OpenAI).
	Name string
}

// PartType is the kind of a content part.
type PartType string

// Content part kinds.
const (
	PartText       PartType = "text"
	PartImage      PartType = "image"
	PartDocument   PartType = "document"
	PartToolCall   PartType = "tool_call"
	PartToolResult PartType = "tool_result"
	PartThinking   PartType = "thinking"
	// PartRedactedThinking carries opaque, encrypted reasoning (Data).
	PartRedactedThinking PartType = "redacted_thinking"
)

// Part is one piece of message content. Which fields are set depends on Type.
type Part struct {
	Type PartType

	// Text is set for text and thinking parts.
	Text string

	// Image and document: either URL, or MediaType plus base64 Data.
	URL       string
	MediaType string
	Data      string // base64 for images/documents; opaque data for redacted thinking

	// Tool call: ID, Name and Arguments (a JSON object as text).
	// Tool result: ID (the call it answers), Result (nested parts) and IsError.
	ID        string
	Name      string
	Arguments string
	Result    []Part
	IsError   bool

	// Signature is the provider's reasoning signature; Family names the provider
	// family that produced it ("anthropic", "openai", "google") so it is only
	// replayed to the same family.
	Signature string
	Family    string

	// CacheControl is the caller's cache mark ("ephemeral"), if any.
	CacheControl string
}

// Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments; nil means no parameters.
	Parameters json.RawMessage
	// Strict asks for strict schema adherence (OpenAI).
	Strict       bool
	CacheControl string
}

// ToolChoiceMode is how the model must use tools.
type ToolChoiceMode string

// Tool choice modes.
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"
	ToolChoiceNone     ToolChoiceMode = "none"
	ToolChoiceRequired ToolChoiceMode = "required" // any tool (Anthropic "any")
	ToolChoiceTool     ToolChoiceMode = "tool"     // the named tool
)

// ToolChoice says whether and which tool the model must call.
type ToolChoice struct {
	Mode ToolChoiceMode
	Name string // for ToolChoiceTool
}

// ResponseFormat asks for JSON output.
type ResponseFormat struct {
	// Type is "json_object" or "json_schema".
	Type   string
	Name   string
	Schema json.RawMessage
	Strict bool
}

// Thinking configures extended thinking / reasoning effort.
type Thinking struct {
	Enabled      bool
	BudgetTokens int
	// Effort is "minimal", "low", "medium" or "high" (OpenAI reasoning effort).
	Effort string
}

package anthropic

import "encoding/json"

// The wire types mirror the Messages API's JSON. in* types are decoded
// (polymorphic members stay raw until their shape is known); out* types are
// encoded, their field order being the order the API writes.

type inRequest struct {
	MaxTokens     *int            `json:"max_tokens"`
	System        json.RawMessage `json:"system"`
	Messages      json.RawMessage `json:"messages"`
	Tools         json.RawMessage `json:"tools"`
	ToolChoice    json.RawMessage `json:"tool_choice"`
	Temperature   *float64        `json:"temperature"`
	TopP          *float64        `json:"top_p"`
	TopK          *int            `json:"top_k"`
	StopSequences []string        `json:"stop_sequences"`
	Stream        bool            `json:"stream"`
	Metadata      *inMetadata     `json:"metadata"`
	Thinking      *inThinking     `json:"thinking"`
	OutputFormat  *inOutputFormat `json:"output_format"`
}

type inMetadata struct {
	UserID string `json:"user_id"`
}

type inThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type inOutputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

type inMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// inBlock is the union of every content block's members.
type inBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	Source       *inSource       `json:"source"`
	Title        string          `json:"title"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      json.RawMessage `json:"content"`
	IsError      bool            `json:"is_error"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Data         string          `json:"data"`
	CacheControl *wireCache      `json:"cache_control"`
}

type inSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
	FileID    string `json:"file_id"`
}

type inTool struct {
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *wireCache      `json:"cache_control"`
}

type inToolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name"`
	DisableParallelToolUse *bool  `json:"disable_parallel_tool_use"`
}

type wireCache struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

type outRequest struct {
	Model         string         `json:"model"`
	MaxTokens     int            `json:"max_tokens"`
	System        any            `json:"system,omitempty"`
	Messages      []outMessage   `json:"messages"`
	Tools         []outTool      `json:"tools,omitempty"`
	ToolChoice    *outToolChoice `json:"tool_choice,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	TopP          *float64       `json:"top_p,omitempty"`
	TopK          *int           `json:"top_k,omitempty"`
	StopSequences []string       `json:"stop_sequences,omitempty"`
	Stream        bool           `json:"stream,omitempty"`
	Metadata      *outMetadata   `json:"metadata,omitempty"`
	Thinking      *outThinking   `json:"thinking,omitempty"`
}

type outMetadata struct {
	UserID string `json:"user_id"`
}

type outThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

type outMessage struct {
	Role    string     `json:"role"`
	Content []outBlock `json:"content"`
}

// outBlock is the union of every content block; pointers mark members that
// must be written even when empty.
type outBlock struct {
	Type         string          `json:"type"`
	Text         *string         `json:"text,omitempty"`
	Source       *outSource      `json:"source,omitempty"`
	Title        string          `json:"title,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      any             `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    *string         `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	CacheControl *wireCache      `json:"cache_control,omitempty"`
}

type outSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type outTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *wireCache      `json:"cache_control,omitempty"`
}

type outToolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse *bool  `json:"disable_parallel_tool_use,omitempty"`
}

// wireResponse is a complete Messages response, both ways.
type wireResponse struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Role         string          `json:"role"`
	Model        string          `json:"model"`
	Content      json.RawMessage `json:"content"`
	StopReason   *string         `json:"stop_reason"`
	StopSequence *string         `json:"stop_sequence"`
	Usage        wireUsage       `json:"usage"`
}

type wireUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// outResponse is wireResponse with typed content for encoding.
type outResponse struct {
	ID           string     `json:"id"`
	Type         string     `json:"type"`
	Role         string     `json:"role"`
	Model        string     `json:"model"`
	Content      []outBlock `json:"content"`
	StopReason   *string    `json:"stop_reason"`
	StopSequence *string    `json:"stop_sequence"`
	Usage        wireUsage  `json:"usage"`
}

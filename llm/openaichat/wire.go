package openaichat

import "encoding/json"

// The wire types mirror the Chat Completions JSON. in* types are decoded
// (polymorphic members stay raw until their shape is known); out* types are
// encoded, in the field order the API writes.

type inRequest struct {
	Messages            json.RawMessage   `json:"messages"`
	Tools               json.RawMessage   `json:"tools"`
	ToolChoice          json.RawMessage   `json:"tool_choice"`
	ParallelToolCalls   *bool             `json:"parallel_tool_calls"`
	MaxTokens           *int              `json:"max_tokens"`
	MaxCompletionTokens *int              `json:"max_completion_tokens"`
	Temperature         *float64          `json:"temperature"`
	TopP                *float64          `json:"top_p"`
	Stop                json.RawMessage   `json:"stop"`
	Seed                *int64            `json:"seed"`
	N                   *int              `json:"n"`
	ResponseFormat      *inResponseFormat `json:"response_format"`
	ReasoningEffort     *string           `json:"reasoning_effort"`
	Stream              bool              `json:"stream"`
	StreamOptions       *inStreamOptions  `json:"stream_options"`
	User                string            `json:"user"`
	Metadata            map[string]string `json:"metadata"`

	// fast is set when fastRequest read the body, the polymorphic members
	// included (below; encoding/json fills none of these): the decoding
	// steps then take them as read instead of decoding the raw members.
	fast     bool
	messages []inMessage // nil: absent or null
	stop     []string
	tools    []inTool // nil: absent or null
	choice   readChoice
}

// readChoice is a tool_choice as fastRequest read it.
type readChoice struct {
	kind  readKind
	mode  string        // kind readText
	named inNamedChoice // kind readObject
}

// readKind is the JSON kind of a polymorphic member fastRequest read.
type readKind uint8

const (
	readNull   readKind = iota // absent or null
	readText                   // a string
	readObject                 // an object (tool_choice)
	readArray                  // an array (content)
)

type inStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type inResponseFormat struct {
	Type       string        `json:"type"`
	JSONSchema *inJSONSchema `json:"json_schema"`
}

type inJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type inMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Refusal    *string         `json:"refusal"`

	// fast is set when fastRequest read the message, with its content and
	// tool calls (below), which the decoding steps then take as read.
	fast      bool
	content   readKind
	text      string       // content kind readText
	parts     []inPart     // content kind readArray
	toolCalls []inToolCall // nil: absent or null
}

// inPart is the union of every content part's members.
type inPart struct {
	Type         string     `json:"type"`
	Text         string     `json:"text"`
	Refusal      string     `json:"refusal"`
	ImageURL     *inImage   `json:"image_url"`
	File         *inFile    `json:"file"`
	CacheControl *wireCache `json:"cache_control"`
}

type inImage struct {
	URL string `json:"url"`
}

type inFile struct {
	FileData string `json:"file_data"`
	FileID   string `json:"file_id"`
	Filename string `json:"filename"`
}

// wireCache is the cache mark some OpenAI-compatible routers accept on text
// parts (Anthropic's shape).
type wireCache struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

type inToolCall struct {
	ID       string     `json:"id"`
	Type     string     `json:"type"`
	Function inFunction `json:"function"`
}

type inFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type inTool struct {
	Type     string          `json:"type"`
	Function *inToolFunction `json:"function"`
}

type inToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

type inNamedChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

type outRequest struct {
	Model               string             `json:"model"`
	Messages            []outMessage       `json:"messages"`
	Tools               []outTool          `json:"tools,omitempty"`
	ToolChoice          any                `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool              `json:"parallel_tool_calls,omitempty"`
	MaxCompletionTokens int                `json:"max_completion_tokens,omitempty"`
	MaxTokens           int                `json:"max_tokens,omitempty"`
	Temperature         *float64           `json:"temperature,omitempty"`
	TopP                *float64           `json:"top_p,omitempty"`
	Stop                []string           `json:"stop,omitempty"`
	Seed                *int64             `json:"seed,omitempty"`
	ResponseFormat      *outResponseFormat `json:"response_format,omitempty"`
	ReasoningEffort     string             `json:"reasoning_effort,omitempty"`
	Stream              bool               `json:"stream,omitempty"`
	StreamOptions       *inStreamOptions   `json:"stream_options,omitempty"`
	User                string             `json:"user,omitempty"`
	Metadata            map[string]string  `json:"metadata,omitempty"`
}

type outMessage struct {
	Role       string        `json:"role"`
	Content    any           `json:"content"`
	Name       string        `json:"name,omitempty"`
	ToolCalls  []outToolCall `json:"tool_calls,omitempty"`
	ToolCallID string        `json:"tool_call_id,omitempty"`
}

type outPart struct {
	Type     string    `json:"type"`
	Text     *string   `json:"text,omitempty"`
	ImageURL *outImage `json:"image_url,omitempty"`
	File     *outFile  `json:"file,omitempty"`
}

type outImage struct {
	URL string `json:"url"`
}

type outFile struct {
	Filename string `json:"filename,omitempty"`
	FileData string `json:"file_data"`
}

type outToolCall struct {
	ID       string      `json:"id"`
	Type     string      `json:"type"`
	Function outFunction `json:"function"`
}

type outFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type outTool struct {
	Type     string          `json:"type"`
	Function outToolFunction `json:"function"`
}

type outToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      bool            `json:"strict,omitempty"`
}

type outNamedChoice struct {
	Type     string       `json:"type"`
	Function outNamedFunc `json:"function"`
}

type outNamedFunc struct {
	Name string `json:"name"`
}

type outResponseFormat struct {
	Type       string         `json:"type"`
	JSONSchema *outJSONSchema `json:"json_schema,omitempty"`
}

type outJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema,omitempty"`
	Strict bool            `json:"strict,omitempty"`
}

// wireUsage is the usage object, both ways. The cache-hit members are
// DeepSeek's spelling of cached prompt tokens.
type wireUsage struct {
	PromptTokens            int                `json:"prompt_tokens"`
	CompletionTokens        int                `json:"completion_tokens"`
	TotalTokens             int                `json:"total_tokens"`
	PromptTokensDetails     *promptDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *completionDetails `json:"completion_tokens_details,omitempty"`
	PromptCacheHitTokens    *int               `json:"prompt_cache_hit_tokens,omitempty"`
}

type promptDetails struct {
	CachedTokens int `json:"cached_tokens"`
	AudioTokens  int `json:"audio_tokens"`
}

type completionDetails struct {
	ReasoningTokens          int `json:"reasoning_tokens"`
	AudioTokens              int `json:"audio_tokens"`
	AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
	RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
}

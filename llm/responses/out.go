package responses

import "encoding/json"

// Output shapes, declared with their members in the order OpenAI sends them.

type outRequest struct {
	Model             string            `json:"model"`
	Instructions      string            `json:"instructions,omitempty"`
	Input             []any             `json:"input"`
	Tools             []outTool         `json:"tools,omitempty"`
	ToolChoice        any               `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool             `json:"parallel_tool_calls,omitempty"`
	Reasoning         *outReasoning     `json:"reasoning,omitempty"`
	Text              *outTextConfig    `json:"text,omitempty"`
	MaxOutputTokens   int               `json:"max_output_tokens,omitempty"`
	Temperature       *float64          `json:"temperature,omitempty"`
	TopP              *float64          `json:"top_p,omitempty"`
	Store             bool              `json:"store"`
	Stream            bool              `json:"stream,omitempty"`
	Include           []string          `json:"include,omitempty"`
	User              string            `json:"user,omitempty"`
	Metadata          map[string]string `json:"metadata,omitempty"`
}

type outTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	// Strict is always sent: the Responses API defaults it to true, which
	// would reject most schemas written for other providers.
	Strict bool `json:"strict"`
}

type outToolChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

type outReasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

type outTextConfig struct {
	Format outFormat `json:"format"`
}

type outFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name,omitempty"`
	Schema json.RawMessage `json:"schema,omitempty"`
	Strict *bool           `json:"strict,omitempty"`
}

type outMessage struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	Status  string `json:"status,omitempty"`
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type outInputText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type outOutputText struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

type outImage struct {
	Type     string `json:"type"`
	ImageURL string `json:"image_url,omitempty"`
	FileID   string `json:"file_id,omitempty"`
	Detail   string `json:"detail"`
}

type outFile struct {
	Type     string `json:"type"`
	FileID   string `json:"file_id,omitempty"`
	FileData string `json:"file_data,omitempty"`
	FileURL  string `json:"file_url,omitempty"`
	Filename string `json:"filename,omitempty"`
}

type outCall struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	Status    string `json:"status,omitempty"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type outCallOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output any    `json:"output"`
}

type outReasoningItem struct {
	Type             string       `json:"type"`
	ID               string       `json:"id,omitempty"`
	Summary          []outSummary `json:"summary"`
	EncryptedContent string       `json:"encrypted_content,omitempty"`
	Status           string       `json:"status,omitempty"`
}

type outSummary struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type outResponse struct {
	ID                string         `json:"id"`
	Object            string         `json:"object"`
	CreatedAt         int64          `json:"created_at"`
	Status            string         `json:"status"`
	Error             *outError      `json:"error"`
	IncompleteDetails *outIncomplete `json:"incomplete_details"`
	Model             string         `json:"model"`
	Output            []any          `json:"output"`
	Usage             *outUsage      `json:"usage"`
}

type outError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type outIncomplete struct {
	Reason string `json:"reason"`
}

type outUsage struct {
	InputTokens         int             `json:"input_tokens"`
	InputTokensDetails  outInputDetail  `json:"input_tokens_details"`
	OutputTokens        int             `json:"output_tokens"`
	OutputTokensDetails outOutputDetail `json:"output_tokens_details"`
	TotalTokens         int             `json:"total_tokens"`
}

type outInputDetail struct {
	CachedTokens int `json:"cached_tokens"`
}

type outOutputDetail struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

package responses

import "encoding/json"

// wireRequest is the part of a Responses request body Heddle reads.
// Polymorphic members stay raw and are decoded by position so that errors
// name the exact element.
type wireRequest struct {
	Instructions      json.RawMessage   `json:"instructions"`
	Input             json.RawMessage   `json:"input"`
	Tools             []json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage   `json:"tool_choice"`
	ParallelToolCalls *bool             `json:"parallel_tool_calls"`
	Reasoning         *wireReasoning    `json:"reasoning"`
	Text              *wireTextConfig   `json:"text"`
	MaxOutputTokens   *int              `json:"max_output_tokens"`
	Temperature       *float64          `json:"temperature"`
	TopP              *float64          `json:"top_p"`
	Stream            *bool             `json:"stream"`
	User              *string           `json:"user"`
	Metadata          map[string]string `json:"metadata"`
}

// wireReasoning is the request's reasoning configuration.
type wireReasoning struct {
	Effort  *string `json:"effort"`
	Summary *string `json:"summary"`
}

// wireTextConfig is the request's text output configuration.
type wireTextConfig struct {
	Format *wireFormat `json:"format"`
}

// wireFormat is text.format.
type wireFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict *bool           `json:"strict"`
}

// wireTool is one entry of tools; only type "function" is read further.
type wireTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
}

// wireItem is an input or output item: a message, function_call,
// function_call_output or reasoning item (other types are skipped).
type wireItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	Output           json.RawMessage `json:"output"`
	Summary          []wireSummary   `json:"summary"`
	EncryptedContent *string         `json:"encrypted_content"`
	Status           string          `json:"status"`
}

// wireSummary is one reasoning summary (or reasoning content) part.
type wireSummary struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// wirePart is one content part of a message or a function_call_output.
type wirePart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Refusal  string          `json:"refusal"`
	ImageURL json.RawMessage `json:"image_url"`
	FileID   string          `json:"file_id"`
	FileData string          `json:"file_data"`
	FileURL  string          `json:"file_url"`
	Filename string          `json:"filename"`
}

// wireResponse is a Responses response object (also carried by stream events).
type wireResponse struct {
	ID                string            `json:"id"`
	CreatedAt         float64           `json:"created_at"`
	Status            string            `json:"status"`
	Error             *wireError        `json:"error"`
	IncompleteDetails *wireIncomplete   `json:"incomplete_details"`
	Model             string            `json:"model"`
	Output            []json.RawMessage `json:"output"`
	Usage             *wireUsage        `json:"usage"`
}

// wireError is the error member of a failed response.
type wireError struct {
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

// wireIncomplete says why a response is incomplete.
type wireIncomplete struct {
	Reason string `json:"reason"`
}

// wireUsage is a response's token usage.
type wireUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

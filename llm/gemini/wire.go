package gemini

import "encoding/json"

// Request members are read in camelCase and in snake_case (the S-suffixed
// twins); polymorphic or positional members stay raw so errors name the
// exact element.

type wireRequest struct {
	Contents           []json.RawMessage `json:"contents"`
	SystemInstruction  json.RawMessage   `json:"systemInstruction"`
	SystemInstructionS json.RawMessage   `json:"system_instruction"`
	Tools              []json.RawMessage `json:"tools"`
	ToolConfig         *wireToolConfig   `json:"toolConfig"`
	ToolConfigS        *wireToolConfig   `json:"tool_config"`
	GenerationConfig   *wireGenConfig    `json:"generationConfig"`
	GenerationConfigS  *wireGenConfig    `json:"generation_config"`
}

type wireContent struct {
	Role  string            `json:"role"`
	Parts []json.RawMessage `json:"parts"`
}

type wirePart struct {
	Text              *string           `json:"text"`
	Thought           bool              `json:"thought"`
	ThoughtSignature  string            `json:"thoughtSignature"`
	ThoughtSignatureS string            `json:"thought_signature"`
	InlineData        *wireBlob         `json:"inlineData"`
	InlineDataS       *wireBlob         `json:"inline_data"`
	FileData          *wireFile         `json:"fileData"`
	FileDataS         *wireFile         `json:"file_data"`
	FunctionCall      *wireCall         `json:"functionCall"`
	FunctionCallS     *wireCall         `json:"function_call"`
	FunctionResponse  *wireFuncResponse `json:"functionResponse"`
	FunctionResponseS *wireFuncResponse `json:"function_response"`
}

type wireBlob struct {
	MimeType  string `json:"mimeType"`
	MimeTypeS string `json:"mime_type"`
	Data      string `json:"data"`
}

type wireFile struct {
	MimeType  string `json:"mimeType"`
	MimeTypeS string `json:"mime_type"`
	FileURI   string `json:"fileUri"`
	FileURIS  string `json:"file_uri"`
}

type wireCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type wireFuncResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type wireTool struct {
	FunctionDeclarations  []json.RawMessage `json:"functionDeclarations"`
	FunctionDeclarationsS []json.RawMessage `json:"function_declarations"`
}

type wireDecl struct {
	Name                  string          `json:"name"`
	Description           string          `json:"description"`
	Parameters            json.RawMessage `json:"parameters"`
	ParametersJSONSchema  json.RawMessage `json:"parametersJsonSchema"`
	ParametersJSONSchemaS json.RawMessage `json:"parameters_json_schema"`
}

type wireToolConfig struct {
	FunctionCallingConfig  *wireCallingConfig `json:"functionCallingConfig"`
	FunctionCallingConfigS *wireCallingConfig `json:"function_calling_config"`
}

type wireCallingConfig struct {
	Mode                  string   `json:"mode"`
	AllowedFunctionNames  []string `json:"allowedFunctionNames"`
	AllowedFunctionNamesS []string `json:"allowed_function_names"`
}

type wireGenConfig struct {
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"topP"`
	TopPS               *float64        `json:"top_p"`
	TopK                *float64        `json:"topK"`
	TopKS               *float64        `json:"top_k"`
	MaxOutputTokens     *int            `json:"maxOutputTokens"`
	MaxOutputTokensS    *int            `json:"max_output_tokens"`
	StopSequences       []string        `json:"stopSequences"`
	StopSequencesS      []string        `json:"stop_sequences"`
	Seed                *int64          `json:"seed"`
	ResponseMimeType    string          `json:"responseMimeType"`
	ResponseMimeTypeS   string          `json:"response_mime_type"`
	ResponseSchema      json.RawMessage `json:"responseSchema"`
	ResponseSchemaS     json.RawMessage `json:"response_schema"`
	ResponseJSONSchema  json.RawMessage `json:"responseJsonSchema"`
	ResponseJSONSchemaS json.RawMessage `json:"response_json_schema"`
	ThinkingConfig      *wireThinking   `json:"thinkingConfig"`
	ThinkingConfigS     *wireThinking   `json:"thinking_config"`
}

type wireThinking struct {
	ThinkingBudget   *int   `json:"thinkingBudget"`
	ThinkingBudgetS  *int   `json:"thinking_budget"`
	IncludeThoughts  *bool  `json:"includeThoughts"`
	IncludeThoughtsS *bool  `json:"include_thoughts"`
	ThinkingLevel    string `json:"thinkingLevel"`
	ThinkingLevelS   string `json:"thinking_level"`
}

// wireResponse is a GenerateContentResponse (also one stream chunk, which
// may instead carry an error).
type wireResponse struct {
	Candidates     []wireCandidate `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *wireUsage         `json:"usageMetadata"`
	ModelVersion  string             `json:"modelVersion"`
	ResponseID    string             `json:"responseId"`
	Error         *wireResponseError `json:"error"`
}

type wireCandidate struct {
	Content *struct {
		Role  string            `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"content"`
	FinishReason string `json:"finishReason"`
}

type wireUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	ToolUsePromptTokenCount int `json:"toolUsePromptTokenCount"`
	TotalTokenCount         int `json:"totalTokenCount"`
}

type wireResponseError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

// or returns a unless it is empty, then b.
func or[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}

// orRaw returns a unless it is absent, then b.
func orRaw(a, b json.RawMessage) json.RawMessage {
	if len(a) > 0 {
		return a
	}
	return b
}

// orSlice returns a unless it is nil, then b.
func orSlice[T any](a, b []T) []T {
	if a != nil {
		return a
	}
	return b
}

package gemini

import "encoding/json"

// Output shapes, in the camelCase the Gemini API documents.

type outRequest struct {
	Contents          []outContent   `json:"contents"`
	SystemInstruction *outContent    `json:"systemInstruction,omitempty"`
	Tools             []outTool      `json:"tools,omitempty"`
	ToolConfig        *outToolConfig `json:"toolConfig,omitempty"`
	GenerationConfig  *outGenConfig  `json:"generationConfig,omitempty"`
}

type outContent struct {
	Role  string    `json:"role,omitempty"`
	Parts []outPart `json:"parts"`
}

type outPart struct {
	Text             *string          `json:"text,omitempty"`
	Thought          bool             `json:"thought,omitempty"`
	InlineData       *outBlob         `json:"inlineData,omitempty"`
	FileData         *outFile         `json:"fileData,omitempty"`
	FunctionCall     *outCall         `json:"functionCall,omitempty"`
	FunctionResponse *outFuncResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string           `json:"thoughtSignature,omitempty"`
}

type outBlob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type outFile struct {
	MimeType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

type outCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type outFuncResponse struct {
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type outTool struct {
	FunctionDeclarations []outDecl `json:"functionDeclarations"`
}

type outDecl struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

type outToolConfig struct {
	FunctionCallingConfig outCallingConfig `json:"functionCallingConfig"`
}

type outCallingConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

type outGenConfig struct {
	Temperature        *float64        `json:"temperature,omitempty"`
	TopP               *float64        `json:"topP,omitempty"`
	TopK               *int            `json:"topK,omitempty"`
	MaxOutputTokens    int             `json:"maxOutputTokens,omitempty"`
	StopSequences      []string        `json:"stopSequences,omitempty"`
	Seed               *int64          `json:"seed,omitempty"`
	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
	ThinkingConfig     *outThinking    `json:"thinkingConfig,omitempty"`
}

type outThinking struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

type outResponse struct {
	Candidates    []outCandidate `json:"candidates"`
	UsageMetadata *outUsage      `json:"usageMetadata,omitempty"`
	ModelVersion  string         `json:"modelVersion,omitempty"`
	ResponseID    string         `json:"responseId,omitempty"`
}

type outCandidate struct {
	Content      outContent `json:"content"`
	FinishReason string     `json:"finishReason,omitempty"`
	Index        int        `json:"index"`
}

type outUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	TotalTokenCount         int `json:"totalTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount,omitempty"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount,omitempty"`
}

type outStreamError struct {
	Error wireErrorDetail `json:"error"`
}

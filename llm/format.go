package llm

// Format names a wire format a caller or an upstream speaks.
type Format string

// The four wire formats Heddle speaks.
const (
	FormatAnthropic Format = "anthropic"        // Anthropic Messages
	FormatChat      Format = "openai_chat"      // OpenAI Chat Completions
	FormatResponses Format = "openai_responses" // OpenAI Responses
	FormatGemini    Format = "gemini"           // Gemini generateContent
)

// Formats lists every wire format, in a stable order.
var Formats = []Format{FormatAnthropic, FormatChat, FormatResponses, FormatGemini}

// Valid reports whether f is one of the four known formats.
func (f Format) Valid() bool {
	switch f {
	case FormatAnthropic, FormatChat, FormatResponses, FormatGemini:
		return true
	}
	return false
}

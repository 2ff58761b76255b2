package responses

import (
	"encoding/json"

	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// ModelOf returns the top-level "model" of a Responses request body without
// decoding the rest of it. A body without a model is a *llm.BadRequestError.
func ModelOf(body []byte) (string, error) {
	spans, err := wirejson.MemberSpans(body, "model")
	if err != nil {
		return "", err
	}
	var model string
	for _, s := range spans {
		// Every model member must be a string; the last one wins (a null
		// leaves the one before it), as encoding/json reads the body.
		if json.Unmarshal(body[s.Start:s.End], &model) != nil {
			return "", badRequest("model", "expected a string")
		}
	}
	if model == "" {
		return "", badRequest("model", "required")
	}
	return model, nil
}

// SetModel returns body with the value of its top-level "model" member
// replaced by model. Every other byte, unknown members included, is kept; a
// body without a model member gets one as its first member.
func (*Codec) SetModel(body []byte, model string) ([]byte, error) {
	return wirejson.SetMember(body, "model", model)
}

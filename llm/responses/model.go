package responses

import "github.com/heddle-gw/heddle/llm/internal/wirejson"

// ModelOf returns the top-level "model" of a Responses request body without
// decoding the rest of it: the last member when the key repeats. A body that
// is not a JSON object, a model that is not a string and a body without a
// (non-empty) model are *llm.BadRequestError. DecodeRequest reads the model
// through the same function, so the two cannot disagree.
func (*Codec) ModelOf(body []byte) (string, error) { return modelOf(body) }

// modelOf is the one reader of a request's model, shared by ModelOf and the
// decoder.
func modelOf(body []byte) (string, error) {
	model, err := wirejson.StringMember(body, "model")
	if err != nil {
		return "", err
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

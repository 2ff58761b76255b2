package anthropic

import "github.com/heddle-gw/heddle/llm/internal/wirejson"

// ModelOf returns the top-level "model" string of a request body without
// decoding the rest of it; "" when the body has no model member. It is a
// *llm.BadRequestError when the body is not a JSON object or the model is
// not a string. Duplicate model members yield the last. DecodeRequest reads
// the model through the same function, so the two cannot disagree.
func (*Codec) ModelOf(body []byte) (string, error) { return modelOf(body) }

// modelOf is the one reader of a request's model, shared by ModelOf and the
// decoder.
func modelOf(body []byte) (string, error) {
	return wirejson.StringMember(body, "model")
}

// modelOfValid is modelOf for a body json.Unmarshal just decoded without
// error (DecodeRequest): the same reader, without a second validation pass.
func modelOfValid(body []byte) (string, error) {
	return wirejson.StringMemberOfValid(body, "model")
}

// SetModel returns a copy of body whose top-level "model" value is model.
// Every other byte survives, unknown members and key order included. Every
// duplicate model member is replaced, so no upstream can read another one; a
// body without a model member gets one as its first member.
func (*Codec) SetModel(body []byte, model string) ([]byte, error) {
	return wirejson.SetMember(body, "model", model)
}

package gateway

import (
	"context"

	"github.com/heddle-gw/heddle/llm"
)

// decodeStage parses the body with the caller's codec (Gemini names the
// model and streaming in the URL) and notes the request in the record.
type decodeStage struct{ codecs Codecs }

func (d decodeStage) run(_ context.Context, p *pass) error {
	codec := d.codecs[p.t.Format]
	req, err := codec.DecodeRequest(p.t.Body)
	if err != nil {
		return err
	}
	if p.t.Format == llm.FormatGemini {
		req.Model, req.Stream = p.t.PathModel, p.t.PathStream
	}
	p.codec, p.req = codec, req
	p.rec.Stream, p.rec.RequestedModel = req.Stream, req.Model
	p.rec.User, p.userSession = endUser(p.t.Header, req.User)
	return nil
}

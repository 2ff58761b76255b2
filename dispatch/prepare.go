package dispatch

import (
	"errors"
	"fmt"
)

var errNoCodec = errors.New("dispatch: no codec for format")

// prepare builds the wire call for one attempt on t. When t speaks the
// caller's format and the caller's body is at hand, the body is forwarded with
// only its model replaced (fast path); otherwise the canonical request is
// encoded in t's format.
func (e *Executor) prepare(op *Operation, t Target, cred Credential) (*Call, error) {
	codec := e.codecs[t.Format]
	if codec == nil {
		return nil, fmt.Errorf("%w %q", errNoCodec, t.Format)
	}
	var body []byte
	var err error
	if op.Endpoint != EndpointGenerate && (t.Format != op.Inbound || len(op.RawBody) == 0) {
		return nil, fmt.Errorf("%w: endpoint %q needs a %s target and the caller's body", ErrBadOperation, op.Endpoint, op.Inbound)
	}
	if t.Format == op.Inbound && len(op.RawBody) > 0 {
		body, err = codec.SetModel(op.RawBody, t.Upstream)
	} else {
		if op.Request == nil {
			return nil, fmt.Errorf("%w: no canonical request to encode for %s", ErrBadOperation, t.Format)
		}
		req := *op.Request
		req.Model = t.Upstream
		req.Stream = op.Stream
		// Usage is needed for events and billing whatever the caller asked;
		// the caller's encoder decides what the client sees.
		req.StreamUsage = op.Stream
		body, err = codec.EncodeRequest(&req)
	}
	if err != nil {
		return nil, fmt.Errorf("dispatch: prepare %s body: %w", t.Format, err)
	}
	return &Call{
		Target:     t,
		Credential: cred,
		Body:       body,
		Stream:     op.Stream,
		Header:     op.Header,
		Endpoint:   op.Endpoint,
	}, nil
}

// Package upstream is the HTTP plumbing the provider adapters share: send a
// prepared request, map a non-2xx answer to *dispatch.UpstreamError (with a
// short message and Retry-After) and keep secrets out of errors.
//
// Ring: adapter internals. It does outbound HTTP through the client it is
// given; it never logs.
package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
)

// maxErrorBody is how much of an error answer is read for its message.
const maxErrorBody = 8 << 10

// maxMessage bounds the message kept from an error answer.
const maxMessage = 512

// Post sends body to url with header and returns the 2xx reply, an
// *dispatch.UpstreamError for any other status, or a transport error that
// names the provider but never the URL's query or the headers.
func Post(ctx context.Context, hc *http.Client, provider, url string, header http.Header, body []byte) (*dispatch.Reply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: build request: %w", provider, err)
	}
	req.Header = header
	req.ContentLength = int64(len(body))
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: send: %w", provider, stripURL(err))
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return &dispatch.Reply{Status: resp.StatusCode, Header: resp.Header, Body: resp.Body}, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return nil, &dispatch.UpstreamError{
		Provider:   provider,
		Status:     resp.StatusCode,
		Reason:     dispatch.ClassifyStatus(resp.StatusCode),
		Message:    Message(raw),
		RetryAfter: RetryAfter(resp.Header.Get("Retry-After"), time.Now()),
	}
}

// stripURL drops the URL from a *url.Error: it may carry a key in its query.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// Message extracts a short human message from an error body: the
// error.message (OpenAI, Anthropic, Gemini) or message field, else the
// body's text, truncated.
func Message(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	msg := ""
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			msg = inner.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		default:
			msg = v.Message
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body))
	}
	if len(msg) > maxMessage {
		msg = msg[:maxMessage]
	}
	return strings.ToValidUTF8(msg, "")
}

// RetryAfter parses a Retry-After header: delay seconds or an HTTP date
// (relative to now). It returns 0 when absent, malformed or in the past.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 86400 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// BaseURL picks the first non-empty of the candidates, without a trailing
// slash.
func BaseURL(candidates ...string) string {
	for _, c := range candidates {
		if c != "" {
			return strings.TrimRight(c, "/")
		}
	}
	return ""
}

// JSONHeader returns a header with the JSON content type, an Accept for
// the answer (SSE for streams) and the members given as key, value pairs
// (set, so a repeated key keeps its last value). Every value sits in one
// array, each in a slice of capacity one (so that Add copies): one
// allocation for the values instead of one per member.
func JSONHeader(stream bool, more ...string) http.Header {
	n := 2 + len(more)/2
	h := make(http.Header, n)
	vals := make([]string, n)
	vals[0], vals[1] = "application/json", "application/json"
	if stream {
		vals[1] = "text/event-stream"
	}
	h["Content-Type"], h["Accept"] = vals[0:1:1], vals[1:2:2]
	for i := 0; i+1 < len(more); i += 2 {
		j := 2 + i/2
		vals[j] = more[i+1]
		h[http.CanonicalHeaderKey(more[i])] = vals[j : j+1 : j+1]
	}
	return h
}

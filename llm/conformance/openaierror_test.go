package conformance

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/openaierr"
)

// openAIErrors pins OpenAI's error table (llm/internal/openaierr): the type
// and code the official API sends for each status (a caller naming no kind)
// and for each of Heddle's error kinds. A change to a value here is a change
// to what every OpenAI-speaking client sees.
var openAIErrors = []struct {
	status     int
	kind       string
	typ, code  string
	openAIKind openaierr.Kind
}{
	{400, "", "invalid_request_error", "", openaierr.InvalidRequest},
	{401, "", "invalid_request_error", "invalid_api_key", openaierr.Authentication},
	{402, "", "insufficient_quota", "insufficient_quota", openaierr.Quota},
	{403, "", "invalid_request_error", "permission_denied", openaierr.Permission},
	{404, "", "invalid_request_error", "", openaierr.NotFound},
	{409, "", "invalid_request_error", "", openaierr.InvalidRequest},
	{413, "", "invalid_request_error", "request_too_large", openaierr.TooLarge},
	{422, "", "invalid_request_error", "", openaierr.InvalidRequest},
	{429, "", "requests", "rate_limit_exceeded", openaierr.RateLimit},
	{500, "", "server_error", "", openaierr.Server},
	{502, "", "server_error", "", openaierr.Server},
	{503, "", "server_error", "server_is_overloaded", openaierr.Overloaded},
	{504, "", "server_error", "timeout", openaierr.Timeout},
	{400, "invalid_request_error", "invalid_request_error", "", openaierr.InvalidRequest},
	{401, "authentication_error", "invalid_request_error", "invalid_api_key", openaierr.Authentication},
	{403, "permission_error", "invalid_request_error", "permission_denied", openaierr.Permission},
	{404, "not_found_error", "invalid_request_error", "", openaierr.NotFound},
	{413, "request_too_large", "invalid_request_error", "request_too_large", openaierr.TooLarge},
	{429, "rate_limit_error", "requests", "rate_limit_exceeded", openaierr.RateLimit},
	{402, "billing_error", "insufficient_quota", "insufficient_quota", openaierr.Quota},
	{502, "api_error", "server_error", "", openaierr.Server},
	{503, "overloaded_error", "server_error", "server_is_overloaded", openaierr.Overloaded},
	{504, "timeout_error", "server_error", "timeout", openaierr.Timeout},
}

// wireError is the part of an OpenAI error body a client reads.
type wireError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func readError(t *testing.T, body []byte) (typ, code, message string) {
	t.Helper()
	var e wireError
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body %s: %v", body, err)
	}
	if e.Error.Param != nil {
		t.Errorf("param = %q, want null", *e.Error.Param)
	}
	if e.Error.Code != nil {
		if *e.Error.Code == "" {
			t.Errorf("code is an empty string, want null")
		}
		code = *e.Error.Code
	}
	return e.Error.Type, code, e.Error.Message
}

// TestOpenAIErrorTable checks that the Chat Completions and Responses codecs
// answer every status and kind with the same body, the table's.
func TestOpenAIErrorTable(t *testing.T) {
	seen := map[openaierr.Kind]bool{}
	for _, tt := range openAIErrors {
		t.Run(fmt.Sprintf("%d %s", tt.status, tt.kind), func(t *testing.T) {
			seen[tt.openAIKind] = true
			if k, ok := openaierr.KindOf(tt.status, tt.kind); !ok || k != tt.openAIKind {
				t.Errorf("KindOf = %v, %v; want %v", k, ok, tt.openAIKind)
			}
			chat := newCodec(llm.FormatChat).EncodeError(tt.status, tt.kind, "m <&>")
			resp := newCodec(llm.FormatResponses).EncodeError(tt.status, tt.kind, "m <&>")
			if string(chat) != string(resp) {
				t.Errorf("chat and responses differ:\n chat      %s\n responses %s", chat, resp)
			}
			typ, code, msg := readError(t, chat)
			if typ != tt.typ || code != tt.code || msg != "m <&>" {
				t.Errorf("type/code/message = %q/%q/%q, want %q/%q", typ, code, msg, tt.typ, tt.code)
			}
		})
	}
	for _, k := range openaierr.Kinds {
		if !seen[k] {
			t.Errorf("kind %v (%s/%s) is not pinned", k, k.Type(), k.Code())
		}
	}
}

// TestOpenAIErrorUnknownKind: both codecs send a kind the table does not know
// as the type itself with a null code, whatever the status.
func TestOpenAIErrorUnknownKind(t *testing.T) {
	for _, status := range []int{400, 401, 418, 429, 500, 503} {
		chat := newCodec(llm.FormatChat).EncodeError(status, "teapot_error", "m")
		resp := newCodec(llm.FormatResponses).EncodeError(status, "teapot_error", "m")
		if string(chat) != string(resp) {
			t.Errorf("%d: chat %s, responses %s", status, chat, resp)
		}
		if typ, code, _ := readError(t, chat); typ != "teapot_error" || code != "" {
			t.Errorf("%d: type/code = %q/%q", status, typ, code)
		}
	}
}

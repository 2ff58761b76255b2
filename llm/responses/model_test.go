package responses

import (
	"errors"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// TestSetModel checks that the codec's SetModel is the shared scanner's
// (whose full table is in llm/internal/wirejson): only the top-level model
// value changes, or the model is added first.
func TestSetModel(t *testing.T) {
	tests := []struct{ name, body, model, want string }{
		{"replaces", `{"model":"gpt-4o","input":"hi"}`, "gpt-5", `{"model":"gpt-5","input":"hi"}`},
		{"keeps spacing and unknown members", "{\n  \"beta_x\": {\"model\": \"inner\"},\n  \"model\" :  \"a\" ,\n  \"input\": []\n}", "b",
			"{\n  \"beta_x\": {\"model\": \"inner\"},\n  \"model\" :  \"b\" ,\n  \"input\": []\n}"},
		{"inserted when missing", `{"input":"x"}`, "b", `{"model":"b","input":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().SetModel([]byte(tt.body), tt.model)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	for _, bad := range []string{``, `{`, `[]`, `"model"`, `{"model":"a"} x`} {
		if _, err := New().SetModel([]byte(bad), "m"); !errors.Is(err, llm.ErrMalformed) {
			t.Errorf("SetModel(%q) err = %v, want ErrMalformed", bad, err)
		}
	}
}

// TestModelOf reads the model without decoding the body.
func TestModelOf(t *testing.T) {
	tests := []struct {
		body, want, field string
		ok                bool
	}{
		{`{"input":{"model":"inner"},"model":"gpt-5"}`, "gpt-5", "", true},
		{`{"model":"auto"}`, "auto", "", true},
		{`{"input":"x"}`, "", "model", false},
		{`{"model":""}`, "", "model", false},
		{`{"model":7}`, "", "model", false},
		{`nope`, "", "", false},
	}
	for _, tt := range tests {
		got, err := New().ModelOf([]byte(tt.body))
		var bad *llm.BadRequestError
		if tt.ok != (err == nil) || got != tt.want || (!tt.ok && (!errors.As(err, &bad) || bad.Field != tt.field)) {
			t.Errorf("ModelOf(%s) = %q, %v", tt.body, got, err)
		}
	}
}

// TestEncodeError checks OpenAI's error shape for Heddle's error kinds.
func TestEncodeError(t *testing.T) {
	tests := []struct {
		status     int
		kind, want string
	}{
		{400, "invalid_request_error", `{"error":{"message":"m","type":"invalid_request_error","param":null,"code":null}}`},
		{401, "authentication_error", `{"error":{"message":"m","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
		{413, "request_too_large", `{"error":{"message":"m","type":"invalid_request_error","param":null,"code":"request_too_large"}}`},
		{429, "rate_limit_error", `{"error":{"message":"m","type":"requests","param":null,"code":"rate_limit_exceeded"}}`},
		{402, "", `{"error":{"message":"m","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`},
		{503, "overloaded_error", `{"error":{"message":"m","type":"server_error","param":null,"code":"server_is_overloaded"}}`},
		{502, "api_error", `{"error":{"message":"m","type":"server_error","param":null,"code":null}}`},
		{418, "teapot_error", `{"error":{"message":"m","type":"teapot_error","param":null,"code":null}}`},
	}
	for _, tt := range tests {
		if got := string(New().EncodeError(tt.status, tt.kind, "m")); got != tt.want {
			t.Errorf("EncodeError(%d, %q) = %s\nwant %s", tt.status, tt.kind, got, tt.want)
		}
	}
}

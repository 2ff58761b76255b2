package anthropic

import (
	"errors"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// TestSetModel checks that the codec's SetModel and ModelOf are the shared
// scanner's (whose full table is in llm/internal/wirejson): the model is
// replaced, or added first, and reads back.
func TestSetModel(t *testing.T) {
	tests := []struct {
		name, body, model, want string
	}{
		{"simple", `{"model":"a","max_tokens":1}`, "b", `{"model":"b","max_tokens":1}`},
		{"escaped key", `{"mo\u0064el":"a","k":"v"}`, "b", `{"mo\u0064el":"b","k":"v"}`},
		{"missing model is added first", `{"max_tokens":1}`, "b", `{"model":"b","max_tokens":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().SetModel([]byte(tt.body), tt.model)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("SetModel =\n%s\nwant\n%s", got, tt.want)
			}
			if m, err := New().ModelOf(got); err != nil || m != tt.model {
				t.Errorf("ModelOf(result) = %q, %v; want %q", m, err, tt.model)
			}
		})
	}
}

func TestSetModelErrors(t *testing.T) {
	for _, body := range []string{``, `{`, `[]`, `"model"`, `{"model":"a"} x`, `{"model":"a",}`} {
		_, err := New().SetModel([]byte(body), "b")
		var bad *llm.BadRequestError
		if !errors.As(err, &bad) {
			t.Errorf("SetModel(%q) err = %v, want *llm.BadRequestError", body, err)
		}
	}
}

func TestModelOf(t *testing.T) {
	tests := []struct {
		body, want string
		err        bool
	}{
		{`{"model":"claude-sonnet-4-5","messages":[]}`, "claude-sonnet-4-5", false},
		{`{"messages":[{"model":"x"}]}`, "", false},
		{`{"model":"a","model":"b"}`, "b", false},
		{`{"model":"caf\u00e9"}`, "café", false},
		{`{"model":1}`, "", true},
		{`not json`, "", true},
		{`[{"model":"a"}]`, "", true},
	}
	for _, tt := range tests {
		got, err := New().ModelOf([]byte(tt.body))
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("ModelOf(%s) = %q, %v; want %q, error %v", tt.body, got, err, tt.want, tt.err)
		}
	}
}

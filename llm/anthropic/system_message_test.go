package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// TestDecodeSystemMessage is the regression test for Claude Code 2.1.328,
// which with its default model ends messages with a "system" message holding
// its environment: it decodes in place as a RoleSystem message (string or
// text blocks, cache marks kept), and encoding folds it into the system
// prompt after the top-level system text.
func TestDecodeSystemMessage(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []llm.Part
	}{
		{"text blocks", `[{"type":"text","text":"# Environment\n - Primary working directory: /w"},{"type":"text","text":"more","cache_control":{"type":"ephemeral"}}]`,
			[]llm.Part{{Type: llm.PartText, Text: "# Environment\n - Primary working directory: /w"},
				{Type: llm.PartText, Text: "more", CacheControl: "ephemeral"}}},
		{"string", `"# Environment"`, []llm.Part{{Type: llm.PartText, Text: "# Environment"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"model":"claude-opus-5-5","max_tokens":64,"system":[{"type":"text","text":"You are Claude Code."}],` +
				`"messages":[{"role":"user","content":"Create hello.txt"},{"role":"system","content":` + tt.content + `}]}`
			c := New()
			r, err := c.DecodeRequest([]byte(body))
			if err != nil {
				t.Fatalf("DecodeRequest: %v", err)
			}
			if len(r.Messages) != 2 || r.Messages[0].Role != llm.RoleUser || r.Messages[1].Role != llm.RoleSystem {
				t.Fatalf("messages = %+v", r.Messages)
			}
			got := r.Messages[1].Content
			if len(got) != len(tt.want) {
				t.Fatalf("system message parts = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i].Type != tt.want[i].Type || got[i].Text != tt.want[i].Text || got[i].CacheControl != tt.want[i].CacheControl {
					t.Errorf("part %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
			if len(r.System) != 1 || r.System[0].Text != "You are Claude Code." {
				t.Errorf("top-level system = %+v", r.System)
			}

			enc, err := c.EncodeRequest(r)
			if err != nil {
				t.Fatalf("EncodeRequest: %v", err)
			}
			var out struct {
				System []struct {
					Text string `json:"text"`
				} `json:"system"`
				Messages []struct {
					Role string `json:"role"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(enc, &out); err != nil {
				t.Fatalf("encoded %s: %v", enc, err)
			}
			if len(out.System) != 1+len(tt.want) || out.System[0].Text != "You are Claude Code." || out.System[1].Text != tt.want[0].Text {
				t.Errorf("encoded system = %+v", out.System)
			}
			if len(out.Messages) != 1 || out.Messages[0].Role != "user" {
				t.Errorf("encoded messages = %+v", out.Messages)
			}
		})
	}
}

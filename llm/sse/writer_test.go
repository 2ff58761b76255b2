package sse

import (
	"bytes"
	"strings"
	"testing"
)

func TestAppendFrame(t *testing.T) {
	tests := []struct {
		name  string
		event string
		data  string
		want  string
	}{
		{"anthropic style", "message_stop", `{"type":"message_stop"}`, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
		{"openai style", "", "[DONE]", "data: [DONE]\n\n"},
		{"multi-line data", "", "a\nb\r\nc\rd", "data: a\ndata: b\ndata: c\ndata: d\n\n"},
		{"empty data", "x", "", "event: x\ndata: \n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AppendFrame(nil, tt.event, []byte(tt.data))
			if string(got) != tt.want {
				t.Fatalf("AppendFrame = %q, want %q", got, tt.want)
			}
			var buf bytes.Buffer
			if err := WriteFrame(&buf, tt.event, []byte(tt.data)); err != nil || buf.String() != tt.want {
				t.Fatalf("WriteFrame = %q, %v", buf.String(), err)
			}
			// What the writer writes, the reader reads back.
			f, err := NewReader(bytes.NewReader(got)).Next()
			if err != nil {
				t.Fatalf("read back: %v", err)
			}
			wantData := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(tt.data)
			if f.Event != tt.event || string(f.Data) != wantData || string(f.Raw) != tt.want {
				t.Fatalf("read back {Event:%q Data:%q Raw:%q}", f.Event, f.Data, f.Raw)
			}
		})
	}
}

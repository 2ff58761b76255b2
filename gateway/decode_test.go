package gateway

import (
	"context"
	"testing"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/gemini"
	"github.com/heddle-gw/heddle/llm/openaichat"
)

func TestDecodeStage(t *testing.T) {
	d := decodeStage{codecs: Codecs{llm.FormatChat: openaichat.New(), llm.FormatGemini: gemini.New()}}
	for _, tt := range []struct {
		name       string
		turn       Turn
		wantErr    bool
		wantModel  string
		wantStream bool
		wantUser   string
	}{
		{name: "chat", turn: Turn{Format: llm.FormatChat,
			Body: []byte(`{"model":"gpt-5-mini","stream":true,"user":"u1","messages":[{"role":"user","content":"hi"}]}`)},
			wantModel: "gpt-5-mini", wantStream: true, wantUser: "u1"},
		{name: "gemini names model and stream in the URL", turn: Turn{Format: llm.FormatGemini, PathModel: "gemini-2.5-flash", PathStream: true,
			Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)},
			wantModel: "gemini-2.5-flash", wantStream: true},
		{name: "bad body", turn: Turn{Format: llm.FormatChat, Body: []byte(`{"model":`)}, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &pass{t: &tt.turn, rec: &analytics.Request{}}
			err := d.run(context.Background(), p)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if p.req.Model != tt.wantModel || p.req.Stream != tt.wantStream || p.codec == nil {
				t.Errorf("request model %q stream %v codec %v", p.req.Model, p.req.Stream, p.codec)
			}
			if p.rec.RequestedModel != tt.wantModel || p.rec.Stream != tt.wantStream || p.rec.User != tt.wantUser {
				t.Errorf("record %+v", p.rec)
			}
		})
	}
}

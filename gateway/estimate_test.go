package gateway

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// TestEstimateTokensDocuments: a multi-page PDF is estimated by its pages
// (llm.MediaTokens), not as one image, so a reservation covers it.
func TestEstimateTokensDocuments(t *testing.T) {
	var pdf bytes.Buffer
	pdf.WriteString("%PDF-1.4\n")
	for i := range 40 {
		fmt.Fprintf(&pdf, "%d 0 obj << /Type /Page /Parent 2 0 R >> endobj\n", 3+i)
	}
	doc := llm.Part{Type: llm.PartDocument, MediaType: "application/pdf", Data: base64.StdEncoding.EncodeToString(pdf.Bytes())}
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{doc, {Type: llm.PartText, Text: "summarise"}}}}}
	want := 40*llm.PageTokens + (16+len("summarise")+3)/4
	if got := EstimateTokens(req); got != want {
		t.Errorf("EstimateTokens = %d, want %d (40 pages at %d)", got, want, llm.PageTokens)
	}
}

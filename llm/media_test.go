package llm

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// testPDF writes a PDF of pages page objects: in plain sight, or (packed)
// inside a Flate-compressed object stream as PDF 1.5 writers do.
func testPDF(pages int, packed bool) string {
	var objs strings.Builder
	objs.WriteString("<< /Type /Pages /Count " + fmt.Sprint(pages) + " >>\n")
	for i := range pages {
		fmt.Fprintf(&objs, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R >>\n", 100+i)
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n")
	if !packed {
		b.WriteString(objs.String())
	} else {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write([]byte(objs.String()))
		w.Close()
		fmt.Fprintf(&b, "5 0 obj << /Type /ObjStm /N %d /First 10 /Filter /FlateDecode /Length %d >>\nstream\r\n", pages+1, z.Len())
		b.Write(z.Bytes())
		b.WriteString("\r\nendstream\nendobj\n")
	}
	b.WriteString("%%EOF\n")
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestMediaTokens(t *testing.T) {
	big := base64.StdEncoding.EncodeToString(make([]byte, 10*PageBytes))
	for _, tt := range []struct {
		name string
		part Part
		want int
	}{
		{"text", Part{Type: PartText, Text: "hello"}, 0},
		{"image", Part{Type: PartImage, MediaType: "image/png", Data: "aGk="}, ImageTokens},
		{"one-page PDF", Part{Type: PartDocument, MediaType: "application/pdf", Data: testPDF(1, false)}, PageTokens},
		{"a 40-page PDF", Part{Type: PartDocument, MediaType: "application/pdf", Data: testPDF(40, false)}, 40 * PageTokens},
		{"a 40-page PDF with object streams", Part{Type: PartDocument, MediaType: "application/pdf", Data: testPDF(40, true)}, 40 * PageTokens},
		{"a PDF whose pages cannot be found: by its size", Part{Type: PartDocument, MediaType: "application/pdf", Data: big}, 10 * PageTokens},
		{"another binary type: by its size", Part{Type: PartDocument, MediaType: "application/msword", Data: big}, 10 * PageTokens},
		{"a text document at four bytes a token", Part{Type: PartDocument, MediaType: "text/plain",
			Data: base64.StdEncoding.EncodeToString(make([]byte, 4000))}, 1000},
		{"a document by URL", Part{Type: PartDocument, URL: "https://example.com/a.pdf"}, URLDocumentPages * PageTokens},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := MediaTokens(tt.part); got != tt.want {
				t.Errorf("MediaTokens = %d, want %d", got, tt.want)
			}
		})
	}
}

// FuzzPDFPages: any bytes, compressed streams included, are counted
// without a panic, and never as fewer pages than their plain page objects.
func FuzzPDFPages(f *testing.F) {
	for _, s := range []string{testPDF(3, false), testPDF(3, true)} {
		raw, _ := base64.StdEncoding.DecodeString(s)
		f.Add(raw)
	}
	f.Add([]byte("/ObjStm stream\r\nx\x9c endstream /Type/Page"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n := pdfPages(b); n < pageObjects(b) {
			t.Fatalf("%d pages, fewer than the %d page objects in plain sight", n, pageObjects(b))
		}
	})
}

// TestPDFPagesInflateBounded: a PDF of many small Flate bombs (each object
// stream inflating to maxObjStm of zeros from a few kilobytes) is not
// inflated stream after stream without end: what pdfPages inflates of one
// PDF is bounded by maxInflate in all.
func TestPDFPagesInflateBounded(t *testing.T) {
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	w.Write(make([]byte, maxObjStm))
	w.Close()
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	const streams = 64
	for range streams {
		b.WriteString("<< /Type /ObjStm /Filter /FlateDecode >>\nstream\n")
		b.Write(z.Bytes())
		b.WriteString("\nendstream\n")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	pdfPages(b.Bytes())
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*maxInflate {
		t.Fatalf("inflating a %d-byte PDF allocated %d bytes, above 8×maxInflate (%d)", b.Len(), got, 8*maxInflate)
	}
}

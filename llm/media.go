package llm

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"io"
	"strings"
)

// Token estimates of media parts (images, documents) for reservations,
// token counts and routing's context needs. They are estimates meant to
// bound, not to match: each provider counts media its own way.
const (
	// ImageTokens is an image's estimate: providers scale an image down to
	// about 1.15 megapixels, about 1,600 tokens on Claude (fewer on OpenAI
	// and Gemini).
	ImageTokens = 1600
	// PageTokens is a document page's estimate: a page's text (up to about
	// 3,000 tokens) with the page also seen as an image, as Claude and
	// OpenAI read PDFs (Gemini counts 258 a page).
	PageTokens = 3000 + ImageTokens
	// PageBytes is the fewest bytes a page of a PDF whose page objects are
	// compressed out of sight is assumed to take (a text-only page is a few
	// kilobytes), so the page count is bounded from above.
	PageBytes = 4 << 10
	// URLDocumentPages is the pages assumed of a document given by URL
	// only (its size is unknown before the provider fetches it).
	URLDocumentPages = 10
)

// MediaTokens estimates the input tokens of an image or document part (0
// for other parts). An image is ImageTokens. A document with data: a text
// document (text/*) at four bytes a token; a PDF at PageTokens a page, its
// pages counted from its page objects ("/Type /Page", also inside
// compressed object streams), or, when none is found, one page per
// PageBytes of its size; any other type one page per PageBytes. A document
// by URL only is URLDocumentPages pages.
func MediaTokens(p Part) int {
	switch p.Type {
	case PartImage:
		return ImageTokens
	case PartDocument:
	default:
		return 0
	}
	if p.Data == "" {
		return URLDocumentPages * PageTokens
	}
	size := len(p.Data)/4*3 - (len(p.Data) - len(strings.TrimRight(p.Data, "="))) // the decoded length
	if strings.HasPrefix(p.MediaType, "text/") {
		return (size + 3) / 4
	}
	pages := 0
	if p.MediaType == "application/pdf" {
		if raw, err := base64.StdEncoding.DecodeString(p.Data); err == nil {
			pages = pdfPages(raw)
		}
	}
	if pages == 0 {
		pages = (size + PageBytes - 1) / PageBytes
	}
	return max(pages, 1) * PageTokens
}

// maxObjStm bounds what pdfPages inflates of one object stream.
const maxObjStm = 4 << 20

// maxInflate bounds what pdfPages inflates of one PDF in all (streams after
// it are not looked into), so many small Flate bombs cost no more than one.
const maxInflate = 16 << 20

// pdfPages counts the page objects of a PDF ("/Type /Page", not
// "/Pages"), in plain sight and inside Flate-compressed object streams
// (PDF 1.5 and later keep them there), inflating maxInflate bytes at most.
func pdfPages(b []byte) int {
	n := pageObjects(b)
	budget := int64(maxInflate)
	for rest := b; budget > 0; {
		i := bytes.Index(rest, []byte("/ObjStm"))
		if i < 0 {
			return n
		}
		rest = rest[i:]
		j := bytes.Index(rest, []byte("stream"))
		if j < 0 {
			return n
		}
		rest = rest[j+len("stream"):]
		rest = bytes.TrimPrefix(bytes.TrimPrefix(rest, []byte("\r")), []byte("\n"))
		end := bytes.Index(rest, []byte("endstream"))
		if end < 0 {
			return n
		}
		if zr, err := zlib.NewReader(bytes.NewReader(rest[:end])); err == nil {
			inflated, _ := io.ReadAll(io.LimitReader(zr, min(maxObjStm, budget)))
			budget -= int64(len(inflated))
			n += pageObjects(inflated)
		}
		rest = rest[end:]
	}
	return n
}

// pageObjects counts "/Type /Page" (any spacing, not "/Pages") in b.
func pageObjects(b []byte) int {
	n := 0
	for {
		i := bytes.Index(b, []byte("/Type"))
		if i < 0 {
			return n
		}
		b = b[i+len("/Type"):]
		rest := bytes.TrimLeft(b, " \t\r\n")
		if bytes.HasPrefix(rest, []byte("/Page")) && !bytes.HasPrefix(rest, []byte("/Pages")) {
			n++
		}
	}
}

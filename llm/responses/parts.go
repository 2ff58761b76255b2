package responses

import (
	"encoding/json"
	"strings"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/dataurl"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// decodePart maps one content part. ok is false for parts with no canonical
// form, which are skipped.
func decodePart(raw json.RawMessage, path string) (llm.Part, bool, error) {
	if wirejson.FirstByte(raw) != '{' {
		return llm.Part{}, false, badRequest(path, "expected an object")
	}
	var p wirePart
	if err := unmarshal(raw, &p, path); err != nil {
		return llm.Part{}, false, err
	}
	switch p.Type {
	case "input_text", "output_text", "text":
		// Empty text parts carry nothing, and some upstreams reject them.
		return llm.Part{Type: llm.PartText, Text: p.Text}, p.Text != "", nil
	case "refusal":
		return llm.Part{Type: llm.PartText, Text: p.Refusal}, p.Refusal != "", nil
	case "input_image":
		return decodeImage(&p, path)
	case "input_file":
		return decodeFile(&p, path)
	case "":
		return llm.Part{}, false, badRequest(path+".type", "required")
	}
	return llm.Part{}, false, nil
}

// decodeImage maps input_image: image_url (a URL or a data URL, also accepted
// as {"url": ...}) or a file_id, kept in Part.ID for a Responses upstream.
func decodeImage(p *wirePart, path string) (llm.Part, bool, error) {
	url := ""
	switch wirejson.FirstByte(p.ImageURL) {
	case '"':
		if err := unmarshal(p.ImageURL, &url, path+".image_url"); err != nil {
			return llm.Part{}, false, err
		}
	case '{':
		var obj struct {
			URL string `json:"url"`
		}
		if err := unmarshal(p.ImageURL, &obj, path+".image_url"); err != nil {
			return llm.Part{}, false, err
		}
		url = obj.URL
	}
	if url == "" {
		if p.FileID == "" {
			return llm.Part{}, false, badRequest(path+".image_url", "required")
		}
		return llm.Part{Type: llm.PartImage, ID: p.FileID}, true, nil
	}
	if strings.HasPrefix(url, "data:") {
		mt, data, ok := dataurl.Parse(url)
		if !ok {
			return llm.Part{}, false, badRequest(path+".image_url", "malformed data URL, want data:<type>;base64,<data>")
		}
		return llm.Part{Type: llm.PartImage, MediaType: mt, Data: data}, true, nil
	}
	return llm.Part{Type: llm.PartImage, URL: url}, true, nil
}

// decodeFile maps input_file: file_data (a data URL), file_url or file_id.
func decodeFile(p *wirePart, path string) (llm.Part, bool, error) {
	doc := llm.Part{Type: llm.PartDocument, Name: p.Filename}
	switch {
	case p.FileData != "":
		mt, data, ok := dataurl.Parse(p.FileData)
		if !ok {
			// The API also takes bare base64; PDF is what it means then.
			mt, data = "application/pdf", p.FileData
		}
		doc.MediaType, doc.Data = mt, data
	case p.FileURL != "":
		doc.URL = p.FileURL
	case p.FileID != "":
		doc.ID = p.FileID
	default:
		return llm.Part{}, false, badRequest(path+".file_data", "one of file_data, file_url or file_id is required")
	}
	return doc, true, nil
}

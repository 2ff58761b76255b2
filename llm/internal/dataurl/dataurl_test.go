package dataurl

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		url, mediaType, data string
		ok                   bool
	}{
		{"data:image/png;base64,iVBO", "image/png", "iVBO", true},
		{"data:application/pdf;base64,JVBE,x", "application/pdf", "JVBE,x", true},
		{"data:;base64,AAAA", "", "AAAA", true},
		{"data:image/png;base64,", "", "", false},
		{"data:text/plain,hello", "", "", false},
		{"data:image/png;base64", "", "", false},
		{"image/png;base64,iVBO", "", "", false},
		{"https://example.com/a.png", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		mt, data, ok := Parse(tt.url)
		if mt != tt.mediaType || data != tt.data || ok != tt.ok {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q, %v", tt.url, mt, data, ok, tt.mediaType, tt.data, tt.ok)
		}
	}
}

func TestFormatParses(t *testing.T) {
	u := Format("image/webp", "UklG")
	if u != "data:image/webp;base64,UklG" {
		t.Fatalf("Format = %q", u)
	}
	if mt, data, ok := Parse(u); !ok || mt != "image/webp" || data != "UklG" {
		t.Errorf("Parse(Format) = %q, %q, %v", mt, data, ok)
	}
}

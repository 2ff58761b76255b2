// Package dataurl reads and writes the base64 data: URLs in which the wire
// formats carry inline images and documents ("data:image/png;base64,...").
// The canonical llm.Part holds such media as MediaType plus base64 Data.
//
// Ring: kernel. It performs no I/O and imports only the standard library.
// It is internal to llm: the four codecs are its only callers.
package dataurl

import "strings"

// Parse splits "data:<media type>;base64,<data>" into its media type and
// data. ok is false for anything else: another scheme, a URL that is not
// base64, or one with no data.
func Parse(u string) (mediaType, data string, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return "", "", false
	}
	meta, data, found := strings.Cut(rest, ",")
	if !found {
		return "", "", false
	}
	mediaType, found = strings.CutSuffix(meta, ";base64")
	if !found || data == "" {
		return "", "", false
	}
	return mediaType, data, true
}

// Format renders base64 data of mediaType as a data URL; Parse reads it back.
func Format(mediaType, data string) string {
	return "data:" + mediaType + ";base64," + data
}

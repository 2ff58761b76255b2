package fastupstream

import (
	"net/http"
	"net/textproto"
	"strings"

	"github.com/valyala/fasthttp"
)

// responseHeader copies h's fields (their names canonical as net/http
// makes them) into an http.Header, leaving out Transfer-Encoding
// (resp.TransferEncoding carries it). It costs three allocations whatever
// the number of fields: one string holding every name and value, one slice
// of all the values (each field's values are a window of it), and the map;
// a name repeated on more than one line costs one more each time it comes
// back, and a name fasthttp left not canonical one more.
func responseHeader(h *fasthttp.ResponseHeader) http.Header {
	n, size := 0, 0
	h.VisitAll(func(k, v []byte) {
		if string(k) != "Transfer-Encoding" {
			n++
			size += len(k) + len(v)
		}
	})
	var sb strings.Builder
	sb.Grow(size)
	h.VisitAll(func(k, v []byte) {
		if string(k) != "Transfer-Encoding" {
			sb.Write(k)
			sb.Write(v)
		}
	})
	all := sb.String()
	values := make([]string, n)
	hdr := make(http.Header, n)
	i, off := 0, 0
	h.VisitAll(func(k, v []byte) {
		if string(k) == "Transfer-Encoding" {
			return
		}
		// fasthttp leaves some names net/http would change ("-a",
		// "x_y-z"): the provider adapters read the header as net/http
		// builds it. A name already canonical costs nothing here.
		key := textproto.CanonicalMIMEHeaderKey(all[off : off+len(k)])
		off += len(k)
		values[i] = all[off : off+len(v)]
		off += len(v)
		if vs, ok := hdr[key]; ok {
			hdr[key] = append(vs, values[i]) // cap is len: this copies, and never writes into values
		} else {
			hdr[key] = values[i : i+1 : i+1]
		}
		i++
	})
	return hdr
}

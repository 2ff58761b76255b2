package analyticstest

import (
	"encoding/base64"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// testCraftedCursors: a cursor a client crafted (a NUL or invalid UTF-8
// in its event id, a time at the int64 edge) or one another store made
// (CursorBefore's NUL) lists the organisation's rows older than it, or
// fails with ErrInvalidCursor (a 400), never with another error (a 500).
func testCraftedCursors(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	c := ctx(t)
	future := time.Now().Add(24 * time.Hour).UnixMilli()
	for name, cursor := range map[string]string{
		"another store's search-older":  analytics.CursorBefore(future).Encode(),
		"a NUL inside the event id":     base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(future, 10) + ":ev\x00x")),
		"invalid UTF-8 in the event id": base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(future, 10) + ":\xff\xfe")),
		"the largest time":              base64.RawURLEncoding.EncodeToString([]byte("9223372036854775807:x")),
		"the largest time and a NUL id": base64.RawURLEncoding.EncodeToString([]byte("9223372036854775807:\x00")),
	} {
		page, err := r.ListRequests(c, OrgA, analytics.RequestFilter{}, cursor, 50)
		if errors.Is(err, analytics.ErrInvalidCursor) {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v, want rows or ErrInvalidCursor", name, err)
			continue
		}
		if got := len(page.Requests); got != len(OrgARequests()) {
			t.Errorf("%s: %d rows, want org A's %d", name, got, len(OrgARequests()))
		}
		for _, q := range page.Requests {
			if q.OrgID != OrgA {
				t.Errorf("%s: a row of %s", name, q.OrgID)
			}
		}
	}
}

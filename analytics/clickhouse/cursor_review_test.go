package clickhouse_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// TestListCraftedCursors: a crafted cursor (a time at the int64 edge, a
// NUL in its event id) lists the organisation's rows older than it, never
// an error and never another organisation's rows.
func TestListCraftedCursors(t *testing.T) {
	s := openFresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	now := time.Now().UTC()
	var reqs []analytics.Request
	for i := range 20 {
		org := "org-a"
		if i%2 == 1 {
			org = "org-b"
		}
		reqs = append(reqs, analytics.Request{EventID: fmt.Sprintf("ev-%05d", i), Time: now.Add(-time.Duration(i) * time.Minute),
			RequestID: fmt.Sprintf("r-%d", i), OrgID: org, KeyID: "k", ServedModel: "m", RouteKind: "explicit", Status: 200})
	}
	if err := s.InsertRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{
		fmt.Sprintf("%d:x", int64(math.MaxInt64)),
		fmt.Sprintf("%d:x", int64(math.MaxInt64-1)),
		fmt.Sprintf("%d:\x00", now.UnixMilli()+1),
		"0:\x00",
	} {
		c := base64.RawURLEncoding.EncodeToString([]byte(raw))
		p, err := s.ListRequests(ctx, "org-a", analytics.RequestFilter{}, c, 50)
		if err != nil {
			t.Errorf("cursor %q: %v", raw, err)
			continue
		}
		for _, r := range p.Requests {
			if r.OrgID != "org-a" {
				t.Errorf("cursor %q: a row of %s", raw, r.OrgID)
			}
		}
		if raw != "0:\x00" && len(p.Requests) != 10 {
			t.Errorf("cursor %q: %d rows, want org-a's 10", raw, len(p.Requests))
		}
	}
}

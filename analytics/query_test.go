package analytics

import (
	"errors"
	"testing"
	"time"
)

func TestPrepareList(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)
	cur := Cursor{TimeMs: to.UnixMilli() - 1, EventID: "evt-9"}.Encode()
	tests := []struct {
		name    string
		org     string
		f       RequestFilter
		cursor  string
		limit   int
		want    ListQuery
		wantErr error
	}{
		{name: "no org", org: "", wantErr: ErrOrgRequired},
		{name: "range backwards", org: "o", f: RequestFilter{From: to, To: from}, wantErr: ErrInvalidRange},
		{name: "bad cursor", org: "o", cursor: "not-a-cursor", wantErr: ErrInvalidCursor},
		{name: "range, cursor and limit", org: "o", f: RequestFilter{From: from, To: to, Model: "m"}, cursor: cur, limit: 7,
			want: ListQuery{OrgID: "o", Filter: RequestFilter{From: from, To: to, Model: "m"}, FromMs: from.UnixMilli(), ToMs: to.UnixMilli(),
				Cursor: Cursor{TimeMs: to.UnixMilli() - 1, EventID: "evt-9"}, HasCursor: true, Limit: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PrepareList(tt.org, tt.f, tt.cursor, tt.limit)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got.OrgID != tt.want.OrgID || got.Filter.Model != tt.want.Filter.Model || got.FromMs != tt.want.FromMs ||
				got.ToMs != tt.want.ToMs || got.Cursor != tt.want.Cursor || got.HasCursor != tt.want.HasCursor || got.Limit != tt.want.Limit {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if q, err := PrepareList("o", RequestFilter{}, "", 0); err != nil || q.Limit != PageSize(0) || q.HasCursor || q.FromMs != 0 {
		t.Errorf("defaults: %+v %v", q, err)
	}
}

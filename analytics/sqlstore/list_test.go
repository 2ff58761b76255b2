package sqlstore

import (
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/internal/testdb"
)

// TestTimelineUsesTheRequestIndex: the timeline's request lookup is planned on
// (org_id, request_id), on SQLite and on Postgres, not on the organisation's
// time index (which made a timeline read every row of the organisation).
func TestTimelineUsesTheRequestIndex(t *testing.T) {
	for name, open := range map[string]func(testing.TB) testdb.DB{"sqlite": testdb.SQLite, "postgres": testdb.Postgres} {
		t.Run(name, func(t *testing.T) {
			db := open(t).DB
			query := db.ToSQL(func(tx *gorm.DB) *gorm.DB {
				var rows []requestRow
				return timelineRequest(tx, "org-a", "req-1").Find(&rows)
			})
			explain := "EXPLAIN QUERY PLAN "
			if name == "postgres" {
				// Without this an empty table is read by a sequential scan.
				if err := db.Exec("SET enable_seqscan = off").Error; err != nil {
					t.Fatal(err)
				}
				explain = "EXPLAIN "
			}
			var plan []string
			rows, err := db.Raw(explain + query).Rows()
			if err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			defer rows.Close()
			cols, _ := rows.Columns()
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				for _, v := range vals {
					switch v := v.(type) {
					case string:
						plan = append(plan, v)
					case []byte:
						plan = append(plan, string(v))
					}
				}
			}
			got := strings.Join(plan, " | ")
			if !strings.Contains(got, "requests_org_request_idx") || strings.Contains(got, "requests_org_time_idx") {
				t.Errorf("%s\nplan: %s", query, got)
			}
		})
	}
}

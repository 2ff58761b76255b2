package requests

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestResultsSayWhereTheSearchStopped: a page whose search stopped at its
// read budget says since when nothing matched and offers "Search older"
// (not "Next page"); a page that did not stop says "No requests match".
func TestResultsSayWhereTheSearchStopped(t *testing.T) {
	render := func(p ResultsProps) string {
		var b strings.Builder
		if err := Results(p).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	stopped := render(ResultsProps{Next: "c1", SearchedFrom: time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)})
	for _, want := range []string{`data-testid="requests-searched"`, "Search older", "No requests match since", "cursor=c1"} {
		if !strings.Contains(stopped, want) {
			t.Errorf("a stopped search's page lacks %q:\n%s", want, stopped)
		}
	}
	if strings.Contains(stopped, "Next page") {
		t.Errorf("a stopped search's page offers a next page:\n%s", stopped)
	}
	done := render(ResultsProps{})
	if !strings.Contains(done, "No requests match.") || strings.Contains(done, "requests-searched") || strings.Contains(done, "Search older") {
		t.Errorf("an exhausted search's page:\n%s", done)
	}
}

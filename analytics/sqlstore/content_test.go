package sqlstore_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/sqlstore"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/tenancy"
	tensql "github.com/heddle-gw/heddle/tenancy/sqlstore"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type contentWorld struct {
	store      *sqlstore.Store
	contents   *analytics.Contents
	clock      *clock
	orgA, orgB string
}

func newContentWorld(t *testing.T, d testdb.DB) contentWorld {
	t.Helper()
	ctx := context.Background()
	ten := tensql.New(d.DB)
	accounts := tenancy.NewAccounts(ten, tenancy.AccountsConfig{Hasher: tenancy.NewHasher(tenancy.PasswordParams{Memory: 64, Time: 1, Threads: 1})})
	var orgs []string
	for _, e := range []string{"a@a.example", "b@b.example"} {
		_, o, err := accounts.Signup(ctx, tenancy.SignupInput{Email: e, Password: "correct horse battery", OrgName: e})
		if err != nil {
			t.Fatal(err)
		}
		orgs = append(orgs, o.ID)
	}
	path := filepath.Join(t.TempDir(), "master.json")
	if _, err := tenancy.EnsureDevKeyset(path); err != nil {
		t.Fatal(err)
	}
	vault, err := tenancy.NewVault(tenancy.FileKeyset(path), ten, tenancy.VaultConfig{})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	s := sqlstore.New(d.DB)
	return contentWorld{store: s, clock: clk, orgA: orgs[0], orgB: orgs[1],
		contents: analytics.NewContents(s, vault, analytics.ContentsConfig{TTL: time.Hour, Now: clk.Now})}
}

func turn(org, id, prompt, answer string, at time.Time) analytics.TurnContent {
	return analytics.TurnContent{OrgID: org, KeyID: "key-1", RequestID: id, Time: at,
		Request: &llm.Request{Model: "gpt-4o", System: []llm.Part{{Type: llm.PartText, Text: "be brief"}},
			Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: prompt}}}},
			Tools:    []llm.Tool{{Name: "lookup", Parameters: []byte(`{"type":"object"}`)}}},
		Response: &llm.Response{Model: "gpt-4o", StopReason: llm.StopEnd, Content: []llm.Part{
			{Type: llm.PartText, Text: answer}, {Type: llm.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{"q":1}`}}},
	}
}

func TestContents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		w := newContentWorld(t, d)
		c := w.contents
		now := w.clock.Now()

		// Off by default: nothing is stored.
		s, err := c.Settings(ctx, w.orgA)
		if err != nil || s.StoreContent || s.RetentionDays != analytics.DefaultRetentionDays || !s.UpdatedAt.IsZero() {
			t.Fatalf("default settings: %+v, %v", s, err)
		}
		if c.Enabled(ctx, w.orgA) {
			t.Fatal("enabled by default")
		}
		if err := c.Keep(ctx, turn(w.orgA, "req_off", "hello off", "hi", now)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(ctx, w.orgA, "req_off"); !errors.Is(err, analytics.ErrNotFound) {
			t.Fatalf("content stored while off: %v", err)
		}

		// Validation names the field.
		for _, days := range []int{0, 91, -1} {
			_, err := c.SetSettings(ctx, w.orgA, analytics.PrivacySettings{StoreContent: true, RetentionDays: days})
			var fe *analytics.FieldError
			if !errors.As(err, &fe) || fe.Field != "retention_days" || !errors.Is(err, analytics.ErrInvalidPrivacy) {
				t.Errorf("retention %d: %v", days, err)
			}
		}
		s, err = c.SetSettings(ctx, w.orgA, analytics.PrivacySettings{StoreContent: true, RetentionDays: 2})
		if err != nil || !s.StoreContent || s.RetentionDays != 2 || !s.UpdatedAt.Equal(now) {
			t.Fatalf("set: %+v, %v", s, err)
		}
		if !c.Enabled(ctx, w.orgA) || c.Enabled(ctx, w.orgB) {
			t.Fatal("enabled: want org A only")
		}

		if err := c.Keep(ctx, turn(w.orgA, "req_1", "my secret prompt", "the answer", now)); err != nil {
			t.Fatal(err)
		}
		got, err := c.Get(ctx, w.orgA, "req_1")
		if err != nil {
			t.Fatal(err)
		}
		if got.RequestID != "req_1" || got.KeyID != "key-1" || !got.CreatedAt.Equal(now) || !got.ExpiresAt.Equal(now.Add(48*time.Hour)) ||
			got.RequestTruncated || got.ResponseTruncated {
			t.Fatalf("content: %+v", got)
		}
		wantReq := `{"model":"gpt-4o","system":[{"type":"text","text":"be brief"}],"messages":[{"role":"user","content":[{"type":"text","text":"my secret prompt"}]}],"tools":[{"name":"lookup","parameters":{"type":"object"}}]}`
		if got.Request != wantReq {
			t.Errorf("request:\n got %s\nwant %s", got.Request, wantReq)
		}
		wantResp := `{"model":"gpt-4o","text":"the answer","tool_calls":[{"id":"call_1","name":"lookup","arguments":"{\"q\":1}"}],"stop_reason":"end_turn"}`
		if got.Response != wantResp {
			t.Errorf("response:\n got %s\nwant %s", got.Response, wantResp)
		}
		// At rest it is sealed.
		var raw []byte
		if err := d.DB.Raw("SELECT request_sealed FROM request_content WHERE request_id = 'req_1'").Row().Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if len(raw) == 0 || bytes.Contains(raw, []byte("secret prompt")) {
			t.Fatalf("stored request is not sealed (%d bytes)", len(raw))
		}
		// The two sides are bound to their side: swapped, neither opens.
		if err := d.DB.Exec("UPDATE request_content SET request_sealed = response_sealed, response_sealed = request_sealed WHERE request_id = 'req_1'").Error; err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(ctx, w.orgA, "req_1"); err == nil {
			t.Fatal("content with its prompt and response swapped opened")
		}
		if err := d.DB.Exec("UPDATE request_content SET request_sealed = response_sealed, response_sealed = request_sealed WHERE request_id = 'req_1'").Error; err != nil {
			t.Fatal(err)
		}
		if back, err := c.Get(ctx, w.orgA, "req_1"); err != nil || back.Request != wantReq {
			t.Fatalf("swapped back: %v", err)
		}
		// Another organisation sees nothing.
		if _, err := c.Get(ctx, w.orgB, "req_1"); !errors.Is(err, analytics.ErrNotFound) {
			t.Fatalf("org B reads org A's content: %v", err)
		}
		// A second Keep of the same request keeps the first row.
		if err := c.Keep(ctx, turn(w.orgA, "req_1", "other", "other", now)); err != nil {
			t.Fatal(err)
		}
		if again, _ := c.Get(ctx, w.orgA, "req_1"); again.Request != wantReq {
			t.Fatalf("duplicate replaced the row: %s", again.Request)
		}

		// Each side is capped.
		big := strings.Repeat("é", analytics.MaxContentBytes)
		if err := c.Keep(ctx, turn(w.orgA, "req_big", big, big, now)); err != nil {
			t.Fatal(err)
		}
		bg, err := c.Get(ctx, w.orgA, "req_big")
		if err != nil || !bg.RequestTruncated || !bg.ResponseTruncated || len(bg.Request) > analytics.MaxContentBytes ||
			len(bg.Request) < analytics.MaxContentBytes-1 || !strings.HasSuffix(bg.Request, "é") {
			t.Fatalf("capped: truncated %v/%v, %d bytes, %v", bg.RequestTruncated, bg.ResponseTruncated, len(bg.Request), err)
		}

		// Turning it off stops new rows and deletes nothing.
		if _, err := c.SetSettings(ctx, w.orgA, analytics.PrivacySettings{StoreContent: false, RetentionDays: 2}); err != nil {
			t.Fatal(err)
		}
		if err := c.Keep(ctx, turn(w.orgA, "req_after", "x", "y", now)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(ctx, w.orgA, "req_after"); !errors.Is(err, analytics.ErrNotFound) {
			t.Fatalf("stored after opt-out: %v", err)
		}
		if _, err := c.Get(ctx, w.orgA, "req_1"); err != nil {
			t.Fatalf("opt-out deleted stored content: %v", err)
		}

		// Org B's row survives org A's delete-all and expiry sweeps.
		if _, err := c.SetSettings(ctx, w.orgB, analytics.PrivacySettings{StoreContent: true, RetentionDays: 90}); err != nil {
			t.Fatal(err)
		}
		if err := c.Keep(ctx, turn(w.orgB, "req_b", "b prompt", "b answer", now)); err != nil {
			t.Fatal(err)
		}

		// Expiry: unreadable at once, deleted by the sweep.
		w.clock.Advance(48 * time.Hour)
		if _, err := c.Get(ctx, w.orgA, "req_1"); !errors.Is(err, analytics.ErrNotFound) {
			t.Fatalf("expired content readable: %v", err)
		}
		n, err := c.DeleteExpired(ctx)
		if err != nil || n != 2 {
			t.Fatalf("delete expired: %d, %v (want 2)", n, err)
		}
		if _, err := c.Get(ctx, w.orgB, "req_b"); err != nil {
			t.Fatalf("org B's content after the sweep: %v", err)
		}

		// Delete all: only the caller's organisation.
		if _, err := c.SetSettings(ctx, w.orgA, analytics.PrivacySettings{StoreContent: true, RetentionDays: 1}); err != nil {
			t.Fatal(err)
		}
		if err := c.Keep(ctx, turn(w.orgA, "req_2", "p", "a", w.clock.Now())); err != nil {
			t.Fatal(err)
		}
		if n, err := c.DeleteAll(ctx, w.orgA); err != nil || n != 1 {
			t.Fatalf("delete all: %d, %v", n, err)
		}
		if _, err := c.Get(ctx, w.orgA, "req_2"); !errors.Is(err, analytics.ErrNotFound) {
			t.Fatalf("after delete all: %v", err)
		}
		if _, err := c.Get(ctx, w.orgB, "req_b"); err != nil {
			t.Fatalf("org A's delete all reached org B: %v", err)
		}

		// A shorter retention applies to what is stored: org B's 90-day row
		// (created at now) now expires a day after its creation, so it is
		// already gone (the clock is 48 h on); a longer one extends nothing.
		if err := c.Keep(ctx, turn(w.orgA, "req_3", "p", "a", w.clock.Now())); err != nil {
			t.Fatal(err)
		}
		if _, err := c.SetSettings(ctx, w.orgB, analytics.PrivacySettings{StoreContent: true, RetentionDays: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(ctx, w.orgB, "req_b"); !errors.Is(err, analytics.ErrNotFound) {
			t.Fatalf("org B's 90-day row outlived its shortened retention: %v", err)
		}
		if a3, err := c.Get(ctx, w.orgA, "req_3"); err != nil || !a3.ExpiresAt.Equal(w.clock.Now().Add(24*time.Hour)) {
			t.Fatalf("org B's change touched org A's row: %+v, %v", a3, err)
		}
		if _, err := c.SetSettings(ctx, w.orgA, analytics.PrivacySettings{StoreContent: true, RetentionDays: 30}); err != nil {
			t.Fatal(err)
		}
		if a3, _ := c.Get(ctx, w.orgA, "req_3"); !a3.ExpiresAt.Equal(w.clock.Now().Add(24 * time.Hour)) {
			t.Fatalf("a longer retention extended a stored row to %v", a3.ExpiresAt)
		}
	})
}

// TestPrivacySchemaChecks: the database itself refuses a retention out of
// bounds.
func TestPrivacySchemaChecks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		s := sqlstore.New(d.DB)
		if err := s.PutPrivacy(context.Background(), "o1", analytics.PrivacySettings{StoreContent: true, RetentionDays: 91}); err == nil {
			t.Fatal("the schema accepted retention_days 91")
		}
	})
}

// TestContentsFailClosed: when the setting cannot be read, Enabled is false
// and Keep stores nothing (and says why).
func TestContentsFailClosed(t *testing.T) {
	d := testdb.SQLite(t)
	w := newContentWorld(t, d)
	ctx := context.Background()
	if _, err := w.contents.SetSettings(ctx, w.orgA, analytics.PrivacySettings{StoreContent: true, RetentionDays: 7}); err != nil {
		t.Fatal(err)
	}
	fresh := analytics.NewContents(w.store, nil, analytics.ContentsConfig{})
	if err := d.DB.Exec("DROP TABLE org_privacy").Error; err != nil {
		t.Fatal(err)
	}
	if fresh.Enabled(ctx, w.orgA) {
		t.Fatal("enabled although the setting cannot be read")
	}
	if err := fresh.Keep(ctx, turn(w.orgA, "req_x", "p", "a", time.Now())); !errors.Is(err, analytics.ErrPrivacyUnavailable) {
		t.Fatalf("keep with an unreadable setting: %v", err)
	}
}

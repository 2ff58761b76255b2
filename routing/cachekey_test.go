package routing_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

func TestCacheKeysOf(t *testing.T) {
	const fp = "lexical-v1/fp"
	q := "What is the capital of France?"
	base, text0, err := routing.CacheKeysOf(aliceScope, ask(q), fp, 0)
	if err != nil || len(base.Exact) != 64 || len(base.Partition) != 64 || base.Numbers != "" || text0 != q {
		t.Fatalf("keys = %+v, text %q, err %v", base, text0, err)
	}
	toolTurn := ask(q)
	toolTurn.Messages = append(toolTurn.Messages, assistant(call("t1", "Bash", `{}`)), user(result("t1", "ok")))
	withImage := ask(q)
	withImage.Messages[2].Content = append(withImage.Messages[2].Content, llm.Part{Type: llm.PartImage, URL: "https://x/y.png"})
	reminderOnly := ask(q)
	reminderOnly.Messages[2] = user(text("<system-reminder>x</system-reminder>"))
	withReminder := ask(q)
	withReminder.Messages[2] = user(text("<system-reminder>x</system-reminder>\n" + q))
	spaced := ask(q)
	spaced.Tools[0].Parameters = []byte("{ \"type\" : \"object\" }")
	streamed := ask(q)
	streamed.Stream = true
	meta := func(kv ...string) *llm.Request {
		r := ask(q)
		r.Metadata = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			r.Metadata[kv[i]] = kv[i+1]
		}
		return r
	}

	tests := []struct {
		name          string
		req           *llm.Request
		fp            string
		max           int
		sameExact     bool
		partition     string // "none", "same", "other"
		text, numbers bool
	}{
		{"identical", ask(q), fp, 0, true, "same", true, false},
		{"stream flag ignored", streamed, fp, 0, true, "same", true, false},
		{"schema whitespace ignored", spaced, fp, 0, true, "same", true, false},
		{"another last message", ask("And of Spain?"), fp, 0, false, "same", true, false},
		{"numbers digested", ask("What is 17 x 23?"), fp, 0, false, "same", true, true},
		{"tool-result turn: exact only", toolTurn, fp, 0, false, "none", false, false},
		{"image in last message: exact only", withImage, fp, 0, false, "none", false, false},
		{"reminder only: exact only", reminderOnly, fp, 0, false, "none", false, false},
		{"reminder moves the partition", withReminder, fp, 0, false, "other", true, false},
		{"too long: exact only", ask(q), fp, 10, true, "none", false, false},
		{"no embedder: exact only", ask(q), "", 0, true, "none", false, false},
		{"another embedder: another partition", ask(q), "hugot/x", 0, true, "other", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, txt, err := routing.CacheKeysOf(aliceScope, tt.req, tt.fp, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if (k.Exact == base.Exact) != tt.sameExact {
				t.Errorf("exact key same = %v, want %v", k.Exact == base.Exact, tt.sameExact)
			}
			switch tt.partition {
			case "none":
				if k.Partition != "" {
					t.Errorf("partition %q, want none", k.Partition)
				}
			case "same":
				if k.Partition != base.Partition {
					t.Errorf("partition differs from the base's")
				}
			case "other":
				if k.Partition == "" || k.Partition == base.Partition {
					t.Errorf("partition %q, want another one", k.Partition)
				}
			}
			if (txt != "") != tt.text || (k.Numbers != "") != tt.numbers {
				t.Errorf("text %q, numbers %q; want text %v, numbers %v", txt, k.Numbers, tt.text, tt.numbers)
			}
			if strings.Contains(txt, "system-reminder") {
				t.Errorf("embedded text carries a reminder: %q", txt)
			}
		})
	}
	a, _, _ := routing.CacheKeysOf(aliceScope, meta("a", "1", "b", "2"), fp, 0)
	b, _, _ := routing.CacheKeysOf(aliceScope, meta("b", "2", "a", "1"), fp, 0)
	c, _, _ := routing.CacheKeysOf(aliceScope, meta("a", "12"), fp, 0)
	if a.Exact != b.Exact || a.Exact == c.Exact {
		t.Fatal("metadata must be order-independent and value-sensitive")
	}
	n1, _, _ := routing.CacheKeysOf(aliceScope, ask("17 x 23"), fp, 0)
	n2, _, _ := routing.CacheKeysOf(aliceScope, ask("17 x 24"), fp, 0)
	n3, _, _ := routing.CacheKeysOf(aliceScope, ask("seventeen times 23: 17 x 23"), fp, 0)
	if n1.Numbers == n2.Numbers || n1.Numbers == "" {
		t.Fatal("different numbers share a digest")
	}
	if n3.Numbers == n1.Numbers {
		t.Fatal("the number sequence 23,17,23 matched 17,23")
	}
}

func TestCacheWithoutEmbedder(t *testing.T) {
	env := newCacheEnv(t, routing.CacheConfig{})
	c, err := routing.NewCache(env.store, nil, routing.CacheConfig{Now: env.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q := ask("What is the capital of France?")
	if ok, err := c.Store(ctx, routing.StoreInput{Scope: aliceScope, Request: q, Status: 200, Response: answer("Paris.")}); !ok || err != nil {
		t.Fatalf("Store = %v, %v", ok, err)
	}
	if _, h, _ := c.Lookup(ctx, routing.LookupInput{Scope: aliceScope, Request: q}); h.Kind != routing.HitExact {
		t.Fatalf("exact lookup = %+v", h)
	}
	_, h, err := c.Lookup(ctx, routing.LookupInput{Scope: aliceScope, Request: ask("what is the capital of FRANCE?")})
	if err != nil || h.Kind != routing.HitMiss || h.Reason != "no_semantic_tier" {
		t.Fatalf("semantic lookup without embedder = %+v, %v; want a miss, no_semantic_tier", h, err)
	}
}

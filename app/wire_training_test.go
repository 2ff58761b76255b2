package app

import (
	"context"
	"io"
	"testing"

	"github.com/heddle-gw/heddle/routing/hugotembed"
	"github.com/heddle-gw/heddle/routing/hugotembed/tinybert"
	"github.com/heddle-gw/heddle/routing/lexical"
)

// TestTrainingEmbedderOwnInstance: training jobs share an inline embedder
// with routing, but get their own instance of a serialising one (hugot), so a
// big upload's training cannot hold up live routing decisions.
func TestTrainingEmbedderOwnInstance(t *testing.T) {
	ctx := context.Background()
	if e, err := trainingEmbedder(ctx, "", nil); e != nil || err != nil {
		t.Fatalf("built-in lexical-v1: %v %v, want nil (each job builds its own)", e, err)
	}
	lex, err := lexical.New(lexical.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := trainingEmbedder(ctx, "lexical-v1", lex); err != nil || e != lex {
		t.Fatalf("inline embedder: %v %v, want the routed instance shared", e, err)
	}
	dir := t.TempDir()
	if err := tinybert.Write(dir); err != nil {
		t.Fatal(err)
	}
	spec := hugotembed.ID + ":" + dir
	routed, err := openEmbedderSpec(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	closeIt(t, routed)
	got, err := trainingEmbedder(ctx, spec, routed)
	if err != nil {
		t.Fatal(err)
	}
	closeIt(t, got)
	if got == routed {
		t.Fatal("training shares the routed hugot instance, whose calls are serialised")
	}
	if got.Fingerprint() != routed.Fingerprint() {
		t.Fatalf("training embeds with %s, routing with %s", got.Fingerprint(), routed.Fingerprint())
	}
}

func closeIt(t *testing.T, e any) {
	if c, ok := e.(io.Closer); ok {
		t.Cleanup(func() { _ = c.Close() })
	}
}

// Package hugotembed is the routing.Embedder adapter over
// knights-analytics/hugot: any Hugging Face sentence-embedding model directory
// (an ONNX file, tokenizer.json, config.json) run on hugot's pure-Go backend
// with a FeatureExtraction pipeline, mean pooling and L2 normalisation.
//
// Ring: adapter of routing. It reads the model directory when opened and
// never touches the network; routing/hfpull downloads model directories.
package hugotembed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/heddle-gw/heddle/routing"
)

// ID is the embedder id recorded in bundles trained with this adapter.
const ID = "hugot"

// ErrModel is wrapped when a model directory cannot be opened.
var ErrModel = errors.New("hugotembed: cannot open model")

// Options tune Open.
type Options struct {
	// OnnxFile picks the ONNX file when the directory holds several
	// (e.g. "model.onnx"); empty means the only one.
	OnnxFile string
}

// Embedder embeds text with a hugot FeatureExtraction pipeline. It is safe
// for concurrent use (calls are serialised). Close releases it.
type Embedder struct {
	mu      sync.Mutex
	session *hugot.Session
	pipe    *pipelines.FeatureExtractionPipeline
	dim     int
	fp      string
}

var _ routing.Embedder = (*Embedder)(nil)

// Open loads the model directory dir on hugot's pure-Go backend.
func Open(ctx context.Context, dir string, opts Options) (*Embedder, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fp, err := Fingerprint(dir)
	if err != nil {
		return nil, err
	}
	session, err := hugot.NewGoSession()
	if err != nil {
		return nil, fmt.Errorf("%w: session: %w", ErrModel, err)
	}
	pipe, err := hugot.NewPipeline(session, hugot.FeatureExtractionConfig{
		ModelPath:    dir,
		Name:         "heddle-embed",
		OnnxFilename: opts.OnnxFile,
		Options:      []hugot.FeatureExtractionOption{pipelines.WithNormalization()},
	})
	if err != nil {
		_ = session.Destroy()
		return nil, fmt.Errorf("%w: %s: %w", ErrModel, dir, err)
	}
	e := &Embedder{session: session, pipe: pipe, fp: fp}
	probe, err := e.run("dimension probe")
	if err != nil {
		_ = session.Destroy()
		return nil, fmt.Errorf("%w: %s: %w", ErrModel, dir, err)
	}
	e.dim = len(probe)
	return e, nil
}

// OpenSpec opens "hugot:DIR"; it fits routing.EmbedderOpener.
func OpenSpec(ctx context.Context, spec string) (routing.Embedder, error) {
	dir, ok := strings.CutPrefix(spec, ID+":")
	if !ok || dir == "" {
		return nil, fmt.Errorf("%w: spec %q is not hugot:DIR", ErrModel, spec)
	}
	return Open(ctx, dir, Options{})
}

// ID returns "hugot".
func (e *Embedder) ID() string { return ID }

// Dim returns the model's embedding dimension.
func (e *Embedder) Dim() int { return e.dim }

// Fingerprint identifies the model files (see Fingerprint).
func (e *Embedder) Fingerprint() string { return e.fp }

// Embed returns the mean-pooled, L2-normalised embedding of text with accents
// stripped first (hugot's Go tokenizer maps accented words to [UNK]). The
// pure-Go backend cannot be interrupted: ctx is checked before the call, and
// routing.EmbedWithTimeout bounds the caller's wait.
func (e *Embedder) Embed(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// hugot's Go tokenizer exits the process on an encoding error: give it
	// valid UTF-8 only.
	return e.run(StripAccents(strings.ToValidUTF8(text, " ")))
}

func (e *Embedder) run(text string) ([]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pipe == nil {
		return nil, fmt.Errorf("%w: embedder closed", ErrModel)
	}
	out, err := e.pipe.RunPipeline([]string{text})
	if err != nil {
		return nil, fmt.Errorf("hugotembed: %w", err)
	}
	if len(out.Embeddings) != 1 {
		return nil, fmt.Errorf("hugotembed: %d embeddings for one input", len(out.Embeddings))
	}
	return out.Embeddings[0], nil
}

// Close releases the hugot session.
func (e *Embedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.session == nil {
		return nil
	}
	err := e.session.Destroy()
	e.session, e.pipe = nil, nil
	return err
}

var accents = sync.Pool{New: func() any {
	return transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
}}

// StripAccents decomposes text (NFD), drops combining marks and recomposes
// (NFC): "café" becomes "cafe".
func StripAccents(text string) string {
	t := accents.Get().(transform.Transformer)
	defer accents.Put(t)
	t.Reset()
	out, _, err := transform.String(t, text)
	if err != nil {
		return text
	}
	return out
}

// modelFiles are the files whose contents define a model directory.
var modelFiles = []string{"config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"}

// Fingerprint hashes the model directory's defining files (every .onnx file
// and the tokenizer and config files present) with the pooling settings, so a
// changed file or setting gives another fingerprint.
func Fingerprint(dir string) (string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if strings.HasSuffix(rel, ".onnx") || strings.HasSuffix(rel, ".onnx_data") || slices.Contains(modelFiles, rel) {
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrModel, err)
	}
	if !slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(n, ".onnx") }) {
		return "", fmt.Errorf("%w: no .onnx file in %s", ErrModel, dir)
	}
	slices.Sort(names)
	h := sha256.New()
	io.WriteString(h, "hugot|mean|l2|strip-accents|v1\n")
	for _, n := range names {
		sum, err := fileHash(filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %s\n", n, sum)
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrModel, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%w: %w", ErrModel, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

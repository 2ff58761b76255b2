// Package hfpull downloads a sentence-embedding model directory from the
// Hugging Face hub (or any server with its URL layout): the model's file list
// from GET {base}/api/models/{name}, then each needed file from
// GET {base}/{name}/resolve/main/{file}.
//
// Ring: adapter of routing. Outbound HTTP to the hub and file writes into the
// destination directory; nothing else.
package hfpull

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// DefaultBaseURL is the Hugging Face hub.
const DefaultBaseURL = "https://huggingface.co"

// Sentinel errors.
var (
	ErrName     = errors.New("hfpull: invalid model name")
	ErrNotFound = errors.New("hfpull: model or file not found")
	ErrNoONNX   = errors.New("hfpull: model has no ONNX file")
	ErrHTTP     = errors.New("hfpull: unexpected HTTP status")
)

// Client downloads model directories.
type Client struct {
	// HTTP is the client used: the caller's, guarded by the outbound
	// address policy (internal/netpolicy) as `heddle models pull` does. Nil
	// is refused, so no pull dials unguarded.
	HTTP *http.Client
	// Token, when set, is sent as a bearer token (gated models).
	Token string
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$`)

// tokenizerFiles are fetched when the repository has them.
var tokenizerFiles = []string{
	"config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt",
	"sentence_bert_config.json", "modules.json", "1_Pooling/config.json",
}

// Pull downloads model name (e.g. "sentence-transformers/all-MiniLM-L6-v2")
// from baseURL (DefaultBaseURL when empty) into destDir. It returns the
// files written, relative to destDir.
func (c *Client) Pull(ctx context.Context, name, destDir, baseURL string) ([]string, error) {
	if !nameRE.MatchString(name) || strings.Contains(name, "..") {
		return nil, fmt.Errorf("%w: %q", ErrName, name)
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	base, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") {
		return nil, fmt.Errorf("hfpull: base URL %q: must be http(s)", baseURL)
	}
	siblings, err := c.list(ctx, base, name)
	if err != nil {
		return nil, err
	}
	plan, err := choose(siblings)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, name)
	}
	if err := os.MkdirAll(destDir, 0o755); err != nil {
		return nil, fmt.Errorf("hfpull: %w", err)
	}
	var written []string
	for _, f := range plan {
		if err := c.fetch(ctx, base, name, f.remote, filepath.Join(destDir, filepath.FromSlash(f.local))); err != nil {
			return written, err
		}
		written = append(written, f.local)
	}
	return written, nil
}

type file struct{ remote, local string }

// choose picks the tokenizer and config files present and one ONNX model:
// onnx/model.onnx, else model.onnx, else the first full-precision .onnx file
// (quantised variants only when nothing else exists). The model is written as
// model.onnx at the top of the directory, with its external data beside it.
func choose(siblings []string) ([]file, error) {
	var plan []file
	for _, t := range tokenizerFiles {
		if slices.Contains(siblings, t) {
			plan = append(plan, file{t, t})
		}
	}
	var onnx []string
	for _, s := range siblings {
		if strings.HasSuffix(s, ".onnx") {
			onnx = append(onnx, s)
		}
	}
	if len(onnx) == 0 {
		return nil, ErrNoONNX
	}
	slices.SortStableFunc(onnx, func(a, b string) int { return rank(a) - rank(b) })
	model := onnx[0]
	plan = append(plan, file{model, "model.onnx"})
	for _, data := range []string{model + "_data", model + ".data"} {
		if slices.Contains(siblings, data) {
			plan = append(plan, file{data, "model.onnx" + strings.TrimPrefix(data, model)})
		}
	}
	return plan, nil
}

func rank(p string) int {
	base := strings.ToLower(path.Base(p))
	quant := strings.Contains(base, "quant") || strings.Contains(base, "int8") || strings.Contains(base, "fp16") ||
		strings.Contains(base, "bnb4") || strings.Contains(base, "q4")
	switch {
	case p == "onnx/model.onnx":
		return 0
	case p == "model.onnx":
		return 1
	case !quant:
		return 2
	}
	return 3
}

// modelInfo is the part of the hub's model API answer that Pull reads.
type modelInfo struct {
	Siblings []struct {
		RFilename string `json:"rfilename"`
	} `json:"siblings"`
}

func (c *Client) list(ctx context.Context, base *url.URL, name string) ([]string, error) {
	resp, err := c.get(ctx, base.String()+"/api/models/"+name)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var info modelInfo
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&info); err != nil {
		return nil, fmt.Errorf("hfpull: model listing of %s: %w", name, err)
	}
	out := make([]string, 0, len(info.Siblings))
	for _, s := range info.Siblings {
		out = append(out, s.RFilename)
	}
	return out, nil
}

// fetch downloads one file into dest through a temporary file, so an
// interrupted download never leaves a truncated file under the final name.
func (c *Client) fetch(ctx context.Context, base *url.URL, name, remote, dest string) error {
	resp, err := c.get(ctx, base.String()+"/"+name+"/resolve/main/"+remote)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("hfpull: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".pull-*")
	if err != nil {
		return fmt.Errorf("hfpull: %w", err)
	}
	_, err = io.Copy(tmp, resp.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dest)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("hfpull: %s: %w", remote, err)
	}
	return nil
}

func (c *Client) get(ctx context.Context, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("hfpull: %w", err)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.HTTP == nil {
		return nil, errors.New("hfpull: no HTTP client (pass one guarded by the address policy)")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("hfpull: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return resp, nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusUnauthorized:
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %s (%d)", ErrNotFound, req.URL.Path, resp.StatusCode)
	default:
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %s: %d", ErrHTTP, req.URL.Path, resp.StatusCode)
	}
}

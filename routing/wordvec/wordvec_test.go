package wordvec

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/routing"
)

// tinyWords is a small frequency-ordered vocabulary.
var tinyWords = []string{"the", ",", ".", "of", "is", "what", "?", "capital", "france", "paris", "germany", "berlin",
	"n't", "do", "'s", "it", "state-of-the-art", "art", "state", "3.14", "(", ")", "def", "return", "café"}

// tinyVectors returns deterministic random vectors for tinyWords.
func tinyVectors(dim int, seed uint64) *Vectors {
	r := rand.New(rand.NewPCG(seed, 7))
	v := &Vectors{Dim: dim, VocabSize: 1000, Words: slices.Clone(tinyWords)}
	for range len(v.Words) * dim {
		v.Vecs = append(v.Vecs, float32(r.NormFloat64()))
	}
	return v
}

func writeTiny(t *testing.T, seed uint64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.hwv")
	if err := WriteFile(path, tinyVectors(8, seed)); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFileRoundTrip(t *testing.T) {
	v := tinyVectors(8, 1)
	var buf bytes.Buffer
	if err := v.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Words, v.Words) || got.Dim != 8 || got.VocabSize != 1000 || got.Checksum != v.Checksum {
		t.Fatalf("round trip: %+v", got)
	}
	for i, x := range v.Vecs {
		// int8 quantisation: error at most half a step of the row's scale.
		if d := math.Abs(float64(got.Vecs[i] - x)); d > 0.05 {
			t.Fatalf("value %d: %v read back as %v", i, x, got.Vecs[i])
		}
	}
}

func TestFileCorruptOrTruncated(t *testing.T) {
	var buf bytes.Buffer
	if err := tinyVectors(8, 1).Write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 1
	for name, data := range map[string][]byte{
		"truncated": good[:len(good)-10],
		"header":    good[:10],
		"flipped":   flipped,
		"empty":     nil,
		"magic":     append([]byte("XXXX"), good[4:]...),
	} {
		_, err := Parse(data)
		if !errors.Is(err, ErrFile) {
			t.Errorf("%s: err %v, want ErrFile", name, err)
		}
	}
	path := filepath.Join(t.TempDir(), "cut.hwv")
	os.WriteFile(path, good[:len(good)-1], 0o644)
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "checksum mismatch") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open of a truncated file: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, ErrFile) {
		t.Fatalf("missing file: %v", err)
	}
}

func tokens(text string) []string {
	var out []string
	Tokens(nil, text, func(b []byte) bool {
		out = append(out, string(b))
		return slices.Contains(tinyWords, string(b))
	})
	return out
}

func TestTokens(t *testing.T) {
	for text, want := range map[string][]string{
		"What is the Capital of FRANCE?": {"what", "is", "the", "capital", "of", "france", "?"},
		"It's pi: 3.14, (don't)":         {"it", "'s", "pi", ":", "3.14", ",", "(", "do", "n't", ")"},
		"a state-of-the-art model":       {"a", "state-of-the-art", "model"},
		"a well-known-x thing":           {"a", "well-known-x", "well", "known", "x", "thing"},
		"def f(x): return 1,000.5":       {"def", "f", "(", "x", ")", ":", "return", "1,000.5"},
		"Café  \n\t":                     {"café"},
		"":                               nil,
		"end.":                           {"end", "."},
	} {
		if got := tokens(text); !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestEmbedDeterministicAndNormalised(t *testing.T) {
	e, err := Open(writeTiny(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, _ := e.Embed(ctx, "What is the capital of France?")
	b, _ := e.Embed(ctx, "what is the capital of france ?")
	if !slices.Equal(a, b) {
		t.Fatal("same tokens embed differently")
	}
	var n float64
	for _, x := range a {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-5 {
		t.Fatalf("norm² %v, want 1", n)
	}
	c, _ := e.Embed(ctx, "the capital of Germany is Berlin")
	if sim := routing.Similarity(a, c); sim >= 0.999 {
		t.Fatalf("different sentences have cosine %v", sim)
	}
	zero, _ := e.Embed(ctx, "zzz qqq")
	if slices.ContainsFunc(zero, func(x float32) bool { return x != 0 }) || len(zero) != 8 {
		t.Fatalf("unknown words: %v, want 8 zeros", zero)
	}
	// SIF: the most frequent word weighs least.
	the, _ := e.Embed(ctx, "the berlin")
	berlin, _ := e.Embed(ctx, "berlin")
	if sim := routing.Similarity(the, berlin); sim < 0.99 {
		t.Fatalf("adding %q moved the vector to cosine %v", "the", sim)
	}
	if raceEnabled {
		return // sync.Pool drops items at random under the race detector
	}
	if got := testing.AllocsPerRun(100, func() { e.EmbedInto(a, "What is the capital of France? It's Paris.") }); got != 0 {
		t.Fatalf("EmbedInto allocates %v times", got)
	}
}

func TestFingerprintMismatchRefused(t *testing.T) {
	e1, err := Open(writeTiny(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	e2, err := Open(writeTiny(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	same, err := Open(writeTiny(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if e1.Fingerprint() == e2.Fingerprint() || e1.Fingerprint() != same.Fingerprint() {
		t.Fatalf("fingerprints %s %s %s", e1.Fingerprint(), e2.Fingerprint(), same.Fingerprint())
	}
	b := &routing.Bundle{ID: "b", Embedder: routing.EmbedderSpec{ID: e1.ID(), Dim: e1.Dim(), Fingerprint: e1.Fingerprint()}}
	if _, err := routing.BundleEmbedder(b, e2); !errors.Is(err, routing.ErrEmbedderMismatch) {
		t.Fatalf("other vectors: %v, want ErrEmbedderMismatch", err)
	}
	if got, err := routing.BundleEmbedder(b, same); err != nil || got != same {
		t.Fatalf("same vectors: %v", err)
	}
	if _, err := OpenSpec(context.Background(), "hugot:x"); !errors.Is(err, ErrFile) {
		t.Fatalf("wrong spec: %v", err)
	}
}

// npmJSON renders v in the wink-embeddings layout, with one extra word
// beyond the vocabulary that has no vector.
func npmJSON(v *Vectors) []byte {
	var b bytes.Buffer
	words, _ := json.Marshal(append(slices.Clone(v.Words), "novector"))
	fmt.Fprintf(&b, `{"precision":8,"l2NormIndex":%d,"wordIndex":%d,"size":%d,"dimensions":%d,"words":%s,"vectors":{`,
		v.Dim, v.Dim+1, v.VocabSize, v.Dim, words)
	for i := len(v.Words) - 1; i >= 0; i-- { // not in rank order
		x, _ := json.Marshal(append(slices.Clone(v.Vecs[i*v.Dim:(i+1)*v.Dim]), 1.5, float32(i)))
		w, _ := json.Marshal(v.Words[i])
		fmt.Fprintf(&b, "%s:%s", w, x)
		if i > 0 {
			b.WriteByte(',')
		}
	}
	fmt.Fprintf(&b, `},"unkVector":[0,0,-1]}`)
	return b.Bytes()
}

func tarball(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}) {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg})
		tw.Write(files[name])
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func TestConvert(t *testing.T) {
	src := tinyVectors(8, 3)
	v, err := ConvertJSON(bytes.NewReader(npmJSON(src)), 5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Words, src.Words[:5]) || !slices.Equal(v.Vecs, src.Vecs[:5*8]) || v.VocabSize != 1000 {
		t.Fatalf("converted %q", v.Words)
	}
	tgz := tarball(t, map[string][]byte{"package/package.json": []byte(`{"name":"x"}`), "package/vectors.json": npmJSON(src)})
	v, err = ConvertTarball(bytes.NewReader(tgz), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Words, src.Words) {
		t.Fatalf("converted %q", v.Words)
	}
	for name, data := range map[string][]byte{
		"not json":  []byte("nope"),
		"cut":       npmJSON(src)[:200],
		"no words":  []byte(`{"dimensions":8}`),
		"short vec": []byte(`{"dimensions":8,"words":["a"],"vectors":{"a":[1,2]}}`),
	} {
		if _, err := ConvertJSON(bytes.NewReader(data), 0); !errors.Is(err, ErrFile) {
			t.Errorf("%s: %v, want ErrFile", name, err)
		}
	}
	if _, err := ConvertTarball(bytes.NewReader([]byte("not gzip")), 0); !errors.Is(err, ErrFile) {
		t.Errorf("bad tarball: %v", err)
	}
}

// fakeRegistry serves one package version's metadata and tarball; integrity
// is what the metadata claims.
func fakeRegistry(t *testing.T, tgz []byte, integrity string) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/vecs/1.0.0":
			fmt.Fprintf(w, `{"name":"vecs","version":"1.0.0","dist":{"tarball":%q,"integrity":%q}}`, srv.URL+"/vecs/-/vecs-1.0.0.tgz", integrity)
		case "/vecs/-/vecs-1.0.0.tgz":
			w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPull(t *testing.T) {
	src := tinyVectors(8, 4)
	tgz := tarball(t, map[string][]byte{"package/vecs.json": npmJSON(src)})
	sum := sha512.Sum512(tgz)
	good := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	ctx := context.Background()

	dir := t.TempDir()
	dest := filepath.Join(dir, "vecs.hwv")
	srv := fakeRegistry(t, tgz, good)
	v, err := Pull(ctx, "vecs@1.0.0", dest, PullOptions{HTTP: srv.Client(), Registry: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(dest)
	if err != nil || len(v.Words) != len(src.Words) {
		t.Fatalf("pulled file: %v, %d words", err, len(v.Words))
	}
	if e.Fingerprint() == "" {
		t.Fatal("no fingerprint")
	}

	bad := sha512.Sum512([]byte("something else"))
	for name, tc := range map[string]struct {
		integrity string
		opts      PullOptions
		pkg       string
		want      error
	}{
		"bad integrity":     {"sha512-" + base64.StdEncoding.EncodeToString(bad[:]), PullOptions{}, "vecs@1.0.0", ErrIntegrity},
		"sha1 integrity":    {"sha1-abc=", PullOptions{}, "vecs@1.0.0", ErrIntegrity},
		"over the size cap": {good, PullOptions{MaxBytes: int64(len(tgz) - 1)}, "vecs@1.0.0", ErrTooLarge},
		"unknown version":   {good, PullOptions{}, "vecs@2.0.0", ErrHTTP},
		"no version":        {good, PullOptions{}, "vecs", ErrPackage},
		"path in name":      {good, PullOptions{}, "../x@1.0.0", ErrPackage},
	} {
		srv := fakeRegistry(t, tgz, tc.integrity)
		tc.opts.HTTP, tc.opts.Registry = srv.Client(), srv.URL
		dest := filepath.Join(t.TempDir(), "out.hwv")
		if _, err := Pull(ctx, tc.pkg, dest, tc.opts); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
		if left, _ := os.ReadDir(filepath.Dir(dest)); len(left) != 0 {
			t.Errorf("%s: left %d files behind", name, len(left))
		}
	}
}

// TestConvertTarballCapsTheVectorJSON: a tarball whose vector JSON would
// decompress past the cap (a gzip bomb: a small download, a huge entry) is
// refused before it is decoded, not read until memory runs out.
func TestConvertTarballCapsTheVectorJSON(t *testing.T) {
	src := tinyVectors(8, 3)
	js := npmJSON(src)
	old := maxJSONBytes
	maxJSONBytes = int64(len(js) - 1)
	defer func() { maxJSONBytes = old }()
	tgz := tarball(t, map[string][]byte{"package/vectors.json": js})
	if _, err := ConvertTarball(bytes.NewReader(tgz), 0); !errors.Is(err, ErrFile) || !strings.Contains(err.Error(), "cap") {
		t.Fatalf("vector JSON over the cap: %v, want ErrFile naming the cap", err)
	}
	maxJSONBytes = int64(len(js))
	if _, err := ConvertTarball(bytes.NewReader(tgz), 0); err != nil {
		t.Fatalf("vector JSON at the cap: %v", err)
	}
}

// TestWriteRefusesAVocabularyOverTheHeader: a vocabulary size the uint32
// header cannot hold (the npm JSON's "size" is not checked) is refused at
// Write, not wrapped into a file that reads back wrong or not at all.
func TestWriteRefusesAVocabularyOverTheHeader(t *testing.T) {
	v := tinyVectors(8, 1)
	v.VocabSize = math.MaxUint32 + 1001
	var buf bytes.Buffer
	err := v.Write(&buf)
	if !errors.Is(err, ErrFile) {
		_, perr := Parse(buf.Bytes())
		t.Fatalf("vocabulary %d: Write %v (read back: %v), want ErrFile", v.VocabSize, err, perr)
	}
}

// TestParseHeaderCannotInflateAllocation: a word count in the header is
// checked against the bytes that follow before anything is allocated for
// it: a 1 MB file claiming a million words costs about its own size, not
// 16 bytes of string header per claimed word.
func TestParseHeaderCannotInflateAllocation(t *testing.T) {
	body := make([]byte, 1<<20)
	copy(body, Magic)
	for i, n := range []uint32{FormatVersion, 8, 1 << 20, 1 << 20} {
		binary.LittleEndian.PutUint32(body[4+4*i:], n)
	}
	for i := headerSize; i < len(body); i++ {
		body[i] = 1 // one-byte words, a vocabulary that never ends
	}
	sum := sha256.Sum256(body)
	data := append(body, sum[:]...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Parse(data)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrFile) {
		t.Fatalf("err %v, want ErrFile", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4*uint64(len(data)) {
		t.Fatalf("Parse of a %d-byte file allocated %d bytes", len(data), got)
	}
}

// TestFingerprintOfVectorsNotReadFromAFile: vectors built in memory (no
// file checksum) still fingerprint by their content, so a bundle trained
// over one set never routes with another.
func TestFingerprintOfVectorsNotReadFromAFile(t *testing.T) {
	e1, err := New(tinyVectors(8, 1), DefaultA)
	if err != nil {
		t.Fatal(err)
	}
	e2, err := New(tinyVectors(8, 2), DefaultA)
	if err != nil {
		t.Fatal(err)
	}
	same, err := New(tinyVectors(8, 1), DefaultA)
	if err != nil {
		t.Fatal(err)
	}
	if e1.Fingerprint() == e2.Fingerprint() || e1.Fingerprint() != same.Fingerprint() {
		t.Fatalf("fingerprints: set 1 %s, set 2 %s, set 1 again %s", e1.Fingerprint(), e2.Fingerprint(), same.Fingerprint())
	}
}

// heapProbe is a reader over data that records the live heap when it is
// first read past mark.
type heapProbe struct {
	data []byte
	off  int
	mark int
	live uint64
}

func (p *heapProbe) Read(b []byte) (int, error) {
	if p.off >= len(p.data) {
		return 0, io.EOF
	}
	if p.off >= p.mark && p.live == 0 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		p.live = m.HeapAlloc
	}
	end := len(p.data)
	if p.off < p.mark {
		end = p.mark
	}
	n := copy(b, p.data[p.off:end])
	p.off += n
	return n, nil
}

// TestConvertKeepsOnlyTheWordsItNeeds: the words past maxWords never get a
// vector, so they are counted, not kept: a vocabulary of a million words
// does not stay in memory while the vectors are read.
func TestConvertKeepsOnlyTheWordsItNeeds(t *testing.T) {
	const n = 1_000_000
	var b bytes.Buffer
	b.WriteString(`{"dimensions":2,"words":["a","b"`)
	for i := 0; i < n; i++ {
		b.WriteString(`,"xy"`)
	}
	b.WriteString(`],`)
	mark := b.Len()
	b.WriteString(`"vectors":{"a":[1,0],"b":[0,1]}}`)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p := &heapProbe{data: b.Bytes(), mark: mark}
	v, err := ConvertJSON(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Words, []string{"a", "b"}) || v.VocabSize != n+2 {
		t.Fatalf("words %q, vocabulary %d", v.Words, v.VocabSize)
	}
	if grew := int64(p.live) - int64(before.HeapAlloc); grew > 8<<20 {
		t.Fatalf("%d words held %d MB live while the vectors were read", n+2, grew>>20)
	}
}

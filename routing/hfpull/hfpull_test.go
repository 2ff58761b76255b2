package hfpull

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hub serves a fake Hugging Face hub: the model API listing and
// /{name}/resolve/main/{file} for the files given.
func hub(t *testing.T, name string, files map[string][]byte, fail string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/models/", func(w http.ResponseWriter, r *http.Request) {
		if strings.TrimPrefix(r.URL.Path, "/api/models/") != name {
			http.NotFound(w, r)
			return
		}
		var sib []map[string]string
		for f := range files {
			sib = append(sib, map[string]string{"rfilename": f})
		}
		slices.SortFunc(sib, func(a, b map[string]string) int { return strings.Compare(a["rfilename"], b["rfilename"]) })
		json.NewEncoder(w).Encode(map[string]any{"id": name, "siblings": sib})
	})
	prefix := "/" + name + "/resolve/main/"
	mux.HandleFunc(prefix, func(w http.ResponseWriter, r *http.Request) {
		f := strings.TrimPrefix(r.URL.Path, prefix)
		if f == fail {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		data, ok := files[f]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func modelFiles() map[string][]byte {
	return map[string][]byte{
		"config.json":               []byte(`{"hidden_size": 32}`),
		"tokenizer.json":            []byte(`{"model": {}}`),
		"special_tokens_map.json":   []byte(`{}`),
		"vocab.txt":                 []byte("[PAD]\n[UNK]\n"),
		"1_Pooling/config.json":     []byte(`{"pooling_mode_mean_tokens": true}`),
		"onnx/model.onnx":           []byte("full precision model"),
		"onnx/model_quantized.onnx": []byte("int8 model"),
		"README.md":                 []byte("# readme"),
		"pytorch_model.bin":         []byte("weights we do not need"),
	}
}

func TestPull(t *testing.T) {
	files := modelFiles()
	srv := hub(t, "org/tiny-model", files, "")
	dest := t.TempDir()
	got, err := (&Client{HTTP: srv.Client()}).Pull(context.Background(), "org/tiny-model", dest, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"config.json", "tokenizer.json", "special_tokens_map.json", "vocab.txt", "1_Pooling/config.json", "model.onnx"}
	if !slices.Equal(got, want) {
		t.Fatalf("written %v, want %v", got, want)
	}
	for _, f := range want {
		remote := f
		if f == "model.onnx" {
			remote = "onnx/model.onnx"
		}
		data, err := os.ReadFile(filepath.Join(dest, f))
		if err != nil || !bytes.Equal(data, files[remote]) {
			t.Errorf("%s: %q, %v; want %q", f, data, err, files[remote])
		}
	}
	for _, absent := range []string{"README.md", "pytorch_model.bin", "onnx/model_quantized.onnx"} {
		if _, err := os.Stat(filepath.Join(dest, absent)); !os.IsNotExist(err) {
			t.Errorf("%s was downloaded", absent)
		}
	}
}

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		name     string
		siblings []string
		model    string
		extra    string
	}{
		{"onnx folder wins", []string{"model.onnx", "onnx/model.onnx"}, "onnx/model.onnx", ""},
		{"top-level model", []string{"model.onnx", "model_int8.onnx"}, "model.onnx", ""},
		{"full precision before quantised", []string{"a_quantized.onnx", "b.onnx"}, "b.onnx", ""},
		{"quantised when alone", []string{"onnx/model_qint8_avx512.onnx"}, "onnx/model_qint8_avx512.onnx", ""},
		{"external data follows", []string{"onnx/model.onnx", "onnx/model.onnx_data"}, "onnx/model.onnx", "onnx/model.onnx_data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := choose(tc.siblings)
			if err != nil {
				t.Fatal(err)
			}
			if plan[0].remote != tc.model || plan[0].local != "model.onnx" {
				t.Fatalf("model %+v, want %s", plan[0], tc.model)
			}
			if tc.extra != "" && (len(plan) != 2 || plan[1].remote != tc.extra || plan[1].local != "model.onnx_data") {
				t.Fatalf("plan %+v, want external data %s", plan, tc.extra)
			}
		})
	}
	if _, err := choose([]string{"config.json"}); !errors.Is(err, ErrNoONNX) {
		t.Fatalf("err %v, want ErrNoONNX", err)
	}
}

func TestPullErrors(t *testing.T) {
	files := modelFiles()
	srv := hub(t, "org/tiny-model", files, "tokenizer.json")
	ctx := context.Background()
	for _, tc := range []struct {
		name, model string
		want        error
	}{
		{"bad name", "../etc", ErrName},
		{"bad name with slashes", "a/b/c", ErrName},
		{"unknown model", "org/missing", ErrNotFound},
		{"file fails", "org/tiny-model", ErrHTTP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dest := t.TempDir()
			_, err := (&Client{HTTP: srv.Client()}).Pull(ctx, tc.model, dest, srv.URL)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dest, "tokenizer.json")); !os.IsNotExist(err) {
				t.Fatal("a failed file was left behind")
			}
			left, _ := filepath.Glob(filepath.Join(dest, ".pull-*"))
			if len(left) > 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
	noONNX := hub(t, "org/no-onnx", map[string][]byte{"config.json": []byte("{}")}, "")
	if _, err := (&Client{HTTP: noONNX.Client()}).Pull(ctx, "org/no-onnx", t.TempDir(), noONNX.URL); !errors.Is(err, ErrNoONNX) {
		t.Fatalf("err %v, want ErrNoONNX", err)
	}
}

func TestPullSendsToken(t *testing.T) {
	var auth string
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), Token: "hf_secret"}
	if _, err := c.Pull(context.Background(), "org/gated", t.TempDir(), srv.URL); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err %v", err)
	}
	if auth != "Bearer hf_secret" {
		t.Fatalf("Authorization %q", auth)
	}
}

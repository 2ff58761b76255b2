// Package static embeds the console's assets (the vendored htmx and the
// stylesheet) and names them by content-hashed URLs, so they can be cached
// forever and still change on every release that changes them.
//
// Ring: presentation. No I/O: the files are compiled into the binary.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
)

//go:embed htmx.min.js console.css
var files embed.FS

// Prefix is the URL path the console serves assets under.
const Prefix = "/static/"

// Asset is one embedded file.
type Asset struct {
	Name        string // file name, e.g. "htmx.min.js"
	ContentType string
	Body        []byte
	Hash        string // first 12 hex digits of the SHA-256 of Body
}

// URL is the asset's content-hashed path: /static/<hash>/<name>.
func (a Asset) URL() string { return Prefix + a.Hash + "/" + a.Name }

var assets = load()

func load() map[string]Asset {
	out := map[string]Asset{}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic("static: read embedded files: " + err.Error()) // compile-time content; cannot fail at run time
	}
	for _, e := range entries {
		body, err := files.ReadFile(e.Name())
		if err != nil {
			panic("static: read " + e.Name() + ": " + err.Error())
		}
		sum := sha256.Sum256(body)
		out[e.Name()] = Asset{Name: e.Name(), ContentType: contentType(e.Name()), Body: body, Hash: hex.EncodeToString(sum[:])[:12]}
	}
	return out
}

func contentType(name string) string {
	switch {
	case len(name) > 3 && name[len(name)-3:] == ".js":
		return "text/javascript; charset=utf-8"
	case len(name) > 4 && name[len(name)-4:] == ".css":
		return "text/css; charset=utf-8"
	}
	return "application/octet-stream"
}

// Lookup returns the asset called name.
func Lookup(name string) (Asset, bool) {
	a, ok := assets[name]
	return a, ok
}

// URL returns the content-hashed URL of the asset called name, or "" when
// there is none.
func URL(name string) string {
	a, ok := assets[name]
	if !ok {
		return ""
	}
	return a.URL()
}

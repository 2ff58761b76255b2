package rings

import (
	"go/ast"
	"strconv"
	"testing"
)

// ioImports are standard packages whose only use is I/O a kernel or domain
// root must not do (drivers and frameworks are in outside).
var ioImports = map[string]string{
	"net":          "network I/O",
	"net/rpc":      "network I/O",
	"net/smtp":     "network I/O",
	"os/exec":      "process I/O",
	"os/signal":    "process I/O",
	"syscall":      "system calls",
	"io/ioutil":    "file I/O",
	"database/sql": "database I/O",
	"plugin":       "loading code",
}

// ioCalls are the names of packages with some pure uses (os.ErrNotExist,
// http.Header) that do I/O.
var ioCalls = map[string]map[string]bool{
	"os": set("Open", "OpenFile", "OpenRoot", "OpenInRoot", "Create", "CreateTemp", "MkdirTemp", "ReadFile", "WriteFile",
		"ReadDir", "Mkdir", "MkdirAll", "Remove", "RemoveAll", "Rename", "Stat", "Lstat", "Truncate", "Chmod",
		"Chown", "Chtimes", "Link", "Symlink", "Readlink", "DirFS", "CopyFS", "Getwd", "Chdir",
		"Getenv", "LookupEnv", "Environ", "Setenv", "Unsetenv", "ExpandEnv",
		"Stdin", "Stdout", "Stderr", "Exit", "StartProcess", "FindProcess"),
	"net/http": set("Client", "DefaultClient", "Get", "Head", "Post", "PostForm", "NewRequest",
		"NewRequestWithContext", "Transport", "DefaultTransport", "ListenAndServe", "ListenAndServeTLS",
		"Serve", "ServeTLS", "Server", "FileServer", "Dir"),
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// ioUse is one I/O use in a file: the package, and what names it.
type ioUse struct{ pkg, what string }

// ioUses finds a file's I/O imports and its uses of ioCalls' names (by the
// name the file imports the package under).
func ioUses(f *ast.File) []ioUse {
	var out []ioUse
	local := map[string]string{} // name in the file -> import path, for ioCalls packages
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if why, ok := ioImports[p]; ok {
			out = append(out, ioUse{p, "imports " + p + " (" + why + ")"})
		}
		if ioCalls[p] == nil {
			continue
		}
		name := lastElem(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = p
	}
	if len(local) == 0 {
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if p, ok := local[id.Name]; ok && ioCalls[p][sel.Sel.Name] {
			out = append(out, ioUse{p, "uses " + id.Name + "." + sel.Sel.Name})
		}
		return true
	})
	return out
}

func lastElem(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// TestNoIOInDomainRoots fails when a kernel or domain root's non-test file
// imports an I/O package or calls a file, network, process or environment
// function, unless exceptions lists it.
func TestNoIOInDomainRoots(t *testing.T) {
	m := scanModule(t)
	for _, f := range m.findings {
		if f.rule == ruleIO && !f.allowed {
			t.Error(f)
		}
	}
}

package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/heddle-gw/heddle/catalog"
)

const catalogHelp = `Usage: heddle catalog import FILE [--out PATH] [--dry-run]

Reads LiteLLM's community price file (model_prices_and_context_window.json),
matches its anthropic, openai, gemini and deepseek entries to catalog models
(by id, alias or upstream id), prints every price that differs from the
embedded catalog's, and writes an operator override with the new prices to
PATH (default HEDDLE_CATALOG_FILE). Models an existing override at PATH lists
are kept unless the import changes them. The override's version names the
imported file, so the prices are a new price version: restart the servers
with HEDDLE_CATALOG_FILE=PATH to use them.

Flags:
  --out PATH   the override file to write (default HEDDLE_CATALOG_FILE)
  --dry-run    print the differences only
`

// catalogCommand implements `heddle catalog import`.
func catalogCommand(args []string, e cliEnv) error {
	if len(args) == 0 || args[0] != "import" {
		return errors.New("usage: heddle catalog import FILE [--out PATH] [--dry-run] (see heddle catalog --help)")
	}
	fs := subcommand("catalog import", "FILE [--out PATH] [--dry-run]", e.stdout)
	out := fs.String("out", e.getenv("HEDDLE_CATALOG_FILE"), "the override file to write (default HEDDLE_CATALOG_FILE)")
	dry := fs.Bool("dry-run", false, "print the differences only")
	// FILE may come before the flags.
	rest := args[1:]
	file := ""
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		file, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return err
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return fmt.Errorf("catalog import: unexpected argument %q", fs.Arg(0))
	}
	if file == "" {
		return errors.New("catalog import: name the LiteLLM price file")
	}
	if *out == "" && !*dry {
		return errors.New("catalog import: give --out PATH (or set HEDDLE_CATALOG_FILE)")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("catalog import: %w", err)
	}
	base, err := catalog.Default()
	if err != nil {
		return err
	}
	imp, err := catalog.ImportLiteLLM(base, data)
	if err != nil {
		return fmt.Errorf("catalog import: %w", err)
	}
	fmt.Fprintf(e.stdout, "catalog import: %d prices differ from the embedded catalog (%s), %d are the same, %d first-party entries name no catalog model\n",
		len(imp.Changes), base.Version, imp.Unchanged, imp.Unmatched)
	for _, c := range imp.Changes {
		fmt.Fprintf(e.stdout, "  %-24s %s\n", c.Model, priceDiff(c.Before, c.After))
	}
	if *dry {
		return nil
	}
	override, err := mergeOverride(*out, imp.Override)
	if err != nil {
		return err
	}
	encoded, err := json.MarshalIndent(override, "", "  ")
	if err != nil {
		return err
	}
	merged, err := catalog.WithOverride(base, encoded)
	if err != nil {
		return fmt.Errorf("catalog import: the override would not load: %w", err)
	}
	if err := os.WriteFile(*out, append(encoded, '\n'), 0o644); err != nil {
		return fmt.Errorf("catalog import: %w", err)
	}
	fmt.Fprintf(e.stdout, "wrote %s: price version %s (restart with HEDDLE_CATALOG_FILE=%s)\n", *out, merged.Version, *out)
	return nil
}

// mergeOverride adds imp to the override already at path (if any): models it
// does not change are kept, with the override's other content.
func mergeOverride(path string, imp catalog.File) (catalog.File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return imp, nil
	}
	if err != nil {
		return catalog.File{}, fmt.Errorf("catalog import: %w", err)
	}
	var old catalog.File
	if err := json.Unmarshal(data, &old); err != nil {
		return catalog.File{}, fmt.Errorf("catalog import: existing %s: %w", path, err)
	}
	changed := map[string]bool{}
	for _, m := range imp.Models {
		changed[m.ID] = true
	}
	out := old
	out.Version = imp.Version
	if out.Sources == nil {
		out.Sources = map[string]string{}
	}
	for k, v := range imp.Sources {
		out.Sources[k] = v
	}
	out.Models = nil
	for _, m := range old.Models {
		if !changed[m.ID] {
			out.Models = append(out.Models, m)
		}
	}
	out.Models = append(out.Models, imp.Models...)
	return out, nil
}

// priceDiff names each price that moved, e.g. "input 3 -> 2.5, output 15 -> 12.5".
func priceDiff(a, b catalog.Price) string {
	var parts []string
	for _, f := range []struct {
		n    string
		x, y float64
	}{{"input", a.Input, b.Input}, {"output", a.Output, b.Output}, {"cache_read", a.CacheRead, b.CacheRead}, {"cache_write", a.CacheWrite, b.CacheWrite}} {
		if f.x != f.y {
			parts = append(parts, fmt.Sprintf("%s %g -> %g", f.n, f.x, f.y))
		}
	}
	return strings.Join(parts, ", ") + " ($/M tokens)"
}

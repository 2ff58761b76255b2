package app

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestModelsHelpNamesEveryPullFlag: `heddle models --help` names every flag
// `heddle models pull` accepts (--allow-private was missing, and it is the
// flag a machine whose registry resolves to a reserved address needs).
func TestModelsHelpNamesEveryPullFlag(t *testing.T) {
	var out bytes.Buffer
	_ = modelsPull(context.Background(), []string{"--help"}, &out, bundleAdapters{})
	flags := regexp.MustCompile(`(?m)^\s+-([a-z-]+)`).FindAllStringSubmatch(out.String(), -1)
	if len(flags) < 5 {
		t.Fatalf("models pull --help lists %d flags:\n%s", len(flags), out.String())
	}
	for _, f := range flags {
		if !strings.Contains(modelsHelp, "--"+f[1]) {
			t.Errorf("heddle models --help does not name --%s", f[1])
		}
	}
}

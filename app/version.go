package app

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// versionLine is `heddle --version`: the module version, the VCS commit
// (with "+dirty" for a modified tree) and time the binary was built from,
// and the Go version, from the build information the Go toolchain embeds.
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "heddle (no build information)"
	}
	return formatVersion(info)
}

func formatVersion(info *debug.BuildInfo) string {
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var parts []string
	if rev := settings["vcs.revision"]; rev != "" {
		if settings["vcs.modified"] == "true" {
			rev += "+dirty"
		}
		parts = append(parts, "commit "+rev)
	} else {
		parts = append(parts, "commit unknown (built without VCS information)")
	}
	if t := settings["vcs.time"]; t != "" {
		parts = append(parts, "committed "+t)
	}
	parts = append(parts, info.GoVersion)
	return fmt.Sprintf("heddle %s (%s)", version, strings.Join(parts, ", "))
}

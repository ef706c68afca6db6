package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/gotachyon/profiler/tachyon"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print the tool's version, the Go that built it and the format it writes",
		usage:   "",
		run:     runVersion,
	})
}

// runVersion prints the module version (or "(devel)" for a build from a
// checkout, with its revision when the build recorded one), the Go
// version and the Tachyon format version.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["version"], stderr)
	pos, code := parseFlags(fs, args)
	if code != proceed {
		return code
	}
	if len(pos) != 0 {
		return usageError(fs, "takes no arguments, got %q", pos)
	}
	fmt.Fprintln(stdout, versionLine())
	return exitOK
}

// versionLine describes this build, from its embedded build information.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Sprintf("tachyon (no build information), Tachyon format v%d", tachyon.Version)
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			v += " " + s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			v += "+dirty"
		}
	}
	return fmt.Sprintf("tachyon %s %s, Tachyon format v%d", v, bi.GoVersion, tachyon.Version)
}

package testutil

import (
	"os"
	"os/exec"
	"testing"
)

// CrossBuild builds the package in the test's directory for goos and
// goarch, without cgo, and fails t with the compiler's output if it does
// not build: a program that imports it must build wherever Go does. It
// skips under -short, as each target compiles the package's
// dependencies anew.
func CrossBuild(t *testing.T, goos, goarch string) {
	t.Helper()
	if testing.Short() {
		t.Skip("cross-compiles the package and its dependencies")
	}
	cmd := exec.Command(Tool(t, "go"), "build", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=%s GOARCH=%s go build: %v\n%s", goos, goarch, err, out)
	}
}

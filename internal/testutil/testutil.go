// Package testutil holds helpers shared by the module's tests: finding the
// shared specs and vectors beside the repository, and requiring external
// tools. Locally a missing resource skips the test; under CI (CI=true) it
// fails it, because CI always provides them.
package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// InCI reports whether the tests run in CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// Missing skips t, or fails it under CI, because what it needs is absent.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("required in CI: "+format, args...)
	}
	t.Skipf("skipped: "+format, args...)
}

// RepoRoot returns the module's root directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Shared returns the path of the shared material (../shared beside the
// repository root, or $TACHYON_SHARED) joined with elem, skipping t (failing
// it in CI) when it is absent.
func Shared(t testing.TB, elem ...string) string {
	t.Helper()
	root := os.Getenv("TACHYON_SHARED")
	if root == "" {
		root = filepath.Join(RepoRoot(), "..", "shared")
	}
	p := filepath.Join(append([]string{root}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		Missing(t, "shared material %s not found", p)
	}
	return p
}

// Tool returns the path of an executable on PATH, skipping t (failing it in
// CI) when it is missing.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s not on PATH", name)
	}
	return p
}

package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
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
	t.Skipf(format, args...)
}

// RepoRoot returns the module's root directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Shared returns the path of the shared material (../shared beside the
// repository root, or $TACHYON_SHARED) joined with elem, skipping t (failing
// it in CI) when it is absent. Tests use it for the shared tools; the public
// vectors have copies in the repository (see Vectors).
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

// Vectors returns the path of the repository's copy of the public vectors
// (testdata/vectors, see its README.md) joined with elem, such as
// Vectors(t, "tachyon", "recursion.bin"). It never skips: the copies are
// part of the repository, so a missing one fails t.
func Vectors(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{RepoRoot(), "testdata", "vectors"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("public vector copy: %v", err)
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

// PprofTool returns the path of go tool pprof's binary, built once into the
// build cache, so that a test can run it with a HOME of its own without
// rebuilding it.
func PprofTool(t testing.TB) string {
	t.Helper()
	out, err := exec.Command(Tool(t, "go"), "tool", "-n", "pprof").Output()
	if err != nil {
		t.Fatalf("go tool -n pprof: %v", err)
	}
	return strings.TrimSpace(string(out))
}

package runlock_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/runlock"
)

// age makes the file at path older than MinAge.
func age(t *testing.T, path string) {
	t.Helper()
	old := time.Now().Add(-2 * runlock.MinAge)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// TestHeldUntilClosed checks that a held file is never abandoned, and is
// once its holder closes it (as the kernel does when a process dies).
func TestHeldUntilClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.part")
	f, err := runlock.Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	age(t, path)
	if runlock.Abandoned(path) {
		t.Fatal("a held file is abandoned")
	}
	if ok, err := runlock.Remove(path); ok || err != nil {
		t.Fatalf("Remove of a held file: %v, %v", ok, err)
	}
	f.Close()
	if !runlock.Abandoned(path) {
		t.Fatal("a file nobody holds is not abandoned")
	}
	if ok, err := runlock.Remove(path); !ok || err != nil {
		t.Fatalf("Remove of an abandoned file: %v, %v", ok, err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("still there: %v", err)
	}
}

// TestNeverAbandoned checks the files that are never abandoned: a young
// one, a symlink, a directory, a missing one.
func TestNeverAbandoned(t *testing.T) {
	dir := t.TempDir()
	young := filepath.Join(dir, "young")
	if err := os.WriteFile(young, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	age(t, target)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	age(t, sub)
	for _, p := range []string{young, link, sub, filepath.Join(dir, "missing")} {
		if runlock.Abandoned(p) {
			t.Errorf("%s is abandoned", filepath.Base(p))
		}
		if ok, _ := runlock.Remove(p); ok {
			t.Errorf("%s removed", filepath.Base(p))
		}
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the symlink's target: %v", err)
	}
}

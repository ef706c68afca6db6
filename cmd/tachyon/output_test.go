package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/proftest"
)

// TestFailedOutputKeepsWhatItDidNotCreate: a command that fails removes an
// output it created, and leaves alone one that was there (a device, a
// symlink, a file).
func TestFailedOutputKeepsWhatItDidNotCreate(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(in, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	// --max-stack-frames 1 makes pprof fail after creating its output.
	fails := func(out string) {
		t.Helper()
		if code, _, _ := runCLI("convert", "--to", "pprof", "--max-stack-frames", "1", in, "-o", out); code == exitOK {
			t.Fatalf("convert to %s succeeded", out)
		}
	}
	created := filepath.Join(dir, "new.pb.gz")
	fails(created)
	if _, err := os.Lstat(created); !os.IsNotExist(err) {
		t.Errorf("created output left behind: %v", err)
	}
	existing := filepath.Join(dir, "existing")
	if err := os.WriteFile(existing, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(existing, link); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{existing, link, os.DevNull} {
		fails(out)
		if _, err := os.Lstat(out); err != nil {
			t.Errorf("%s removed: %v", out, err)
		}
	}
}

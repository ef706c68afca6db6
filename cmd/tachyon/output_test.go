package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
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

// TestOnePassKeepsExistingOutput: the exports that validate the file in
// their own pass (no verification first) create -o at their first byte,
// so a corrupt input or a limit reached while aggregating leaves an
// existing output as it was, and the error for a corrupt input is the
// reader's, as a verification first would give it.
func TestOnePassKeepsExistingOutput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(good, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := testutil.Vectors(t, "tachyon", "corrupt", "sample_count_mismatch.bin")
	_, verified, _ := runCLI("verify", bad)
	wantErr := strings.TrimSpace(verified) // "FILE: offset N: CODE: reason"
	if !strings.Contains(wantErr, "E_SAMPLE_COUNT") {
		t.Fatalf("verify %s: %q", bad, wantErr)
	}
	for _, to := range []string{"nytprof", "speedscope"} {
		out := filepath.Join(dir, to+".out")
		if err := os.WriteFile(out, []byte("keep me"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCLI("convert", "--to", to, bad, "-o", out)
		if code != exitBad || !strings.Contains(errs, wantErr) {
			t.Errorf("%s, corrupt input: exit %d, %q; want the reader's error %q", to, code, errs, wantErr)
		}
		if code, _, _ := runCLI("convert", "--to", to, "--max-stack-frames", "1", good, "-o", out); code != exitBad {
			t.Errorf("%s past its limit: exit %d", to, code)
		}
		if b, err := os.ReadFile(out); err != nil || string(b) != "keep me" {
			t.Errorf("%s: existing output now %q, %v", to, b, err)
		}
	}
	if code, out, errs := runCLI("collapsed", bad); code != exitBad || out != "" || !strings.Contains(errs, "E_") {
		t.Errorf("collapsed, corrupt input: exit %d, %q, %q", code, out, errs)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestNamesCannotForgeLines: a file name holding a line break cannot forge
// a line of verify's report, nor of an error: a name that is not plain is
// quoted as a Go string, a plain one is printed as it is.
func TestNamesCannotForgeLines(t *testing.T) {
	dir := t.TempDir()
	good := proftest.AllStatusesBytes(t)
	corrupt, err := os.ReadFile(testutil.Vectors(t, "tachyon", "corrupt", "sample_count_mismatch.bin"))
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain profile.bin")
	forgedOK := filepath.Join(dir, "x.bin: ok\ny.bin")
	forgedBad := filepath.Join(dir, "bad.bin\nz.bin: ok\x1b[2K")
	missing := filepath.Join(dir, "missing\nw.bin: ok")
	for p, b := range map[string][]byte{plain: good, forgedOK: good, forgedBad: corrupt} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, errs := runCLI("verify", plain, forgedOK, forgedBad, missing)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	want := []string{plain + ": ok", strconv.Quote(forgedOK) + ": ok", strconv.Quote(forgedBad) + ": ", strconv.Quote(missing)}
	if code != exitBad || len(lines) != len(want) {
		t.Fatalf("verify: exit %d, %d lines, want 1 and %d:\n%s%s", code, len(lines), len(want), stdout, errs)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) || (i < 3 && !strings.HasPrefix(lines[i], w)) {
			t.Errorf("line %d is %q, want it to begin with (or for a missing file hold) %q", i+1, lines[i], w)
		}
	}
	for _, args := range [][]string{{"info", forgedBad}, {"info", missing}, {"convert", "--to", "pprof", forgedBad, "-o", missing}} {
		code, _, errs := runCLI(args...)
		if code != exitBad || strings.Count(errs, "\n") != 1 || strings.ContainsAny(errs, "\x1b") {
			t.Errorf("%q: exit %d, stderr %q; want 1 and one line", args, code, errs)
		}
	}
	if code, _, errs := runCLI("info", plain); code != exitOK || errs != "" {
		t.Errorf("info %s: exit %d %q", plain, code, errs)
	}
}

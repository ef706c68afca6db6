package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestConvertFormats checks what every row of the formats table shares:
// names in order, a usage naming the common flags, and a rejected input
// failing with no output file left behind.
func TestConvertFormats(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bad := testutil.Shared(t, "testdata", "tachyon", "corrupt", "bad_magic.bin")
	for i, f := range formats {
		if i > 0 && formats[i-1].name >= f.name {
			t.Errorf("formats not in strict name order at %q", f.name)
		}
		t.Run(f.name, func(t *testing.T) {
			code, _, errs := runCLI("convert", "--to", f.name, "--help")
			if code != exitOK || strings.Count(errs, "usage: tachyon convert --to FORMAT") != 1 ||
				!strings.Contains(errs, "\n  -to string\n") || !strings.Contains(errs, "\n  -o string\n") {
				t.Errorf("--help: exit %d, %q", code, errs)
			}
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"convert", "--to", f.name, bad, "-o", out}
			if f.name == "dcpi" {
				args = append(args, "--binary", exe)
			}
			code, _, errs = runCLI(args...)
			if code != exitBad || !strings.Contains(errs, bad+": offset 0") {
				t.Errorf("corrupt input: exit %d, %q", code, errs)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("corrupt input left %s behind", out)
			}
		})
	}
	if code, _, errs := runCLI("convert", "--to", "nosuch", bad, "-o", "x"); code != exitUsage || !strings.Contains(errs, converterNames()) {
		t.Errorf("unknown format: exit %d, %q", code, errs)
	}
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

func TestReportCommand(t *testing.T) {
	dir := testutil.Vectors(t, "tachyon")
	out := filepath.Join(t.TempDir(), "r.html")
	code, _, stderr := runCLI("report", filepath.Join(dir, "threads_8.zstd.bin"), "-o", out, "-goroutines", "3", "-title", "eight",
		"-groups", "2", "-slices", "10", "-buckets", "50", "-max-nodes", "100")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if !strings.HasPrefix(s, "<!doctype html>") || !strings.Contains(s, `"title":"eight"`) || strings.Count(s, `"g":`) > 3 || strings.Count(s, `"entry":`) > 2+3 {
		t.Errorf("report page lacks the title or has the wrong number of lanes (%d bytes)", len(page))
	}
	m := regexp.MustCompile(`"slices":(\d+),`).FindStringSubmatch(s)
	if !strings.Contains(s, `"buckets":50,`) || m == nil || len(m[1]) > 1 && m[1] != "10" || m[1] == "0" {
		t.Errorf("report page does not have the 50 -buckets and at most 10 -slices asked for: %q", m)
	}
	code, stdout, _ := runCLI("report", filepath.Join(dir, "empty.bin"), "-o", "-")
	if code != exitOK || !strings.Contains(stdout, `"samples":0`) {
		t.Errorf("report of empty.bin to stdout: exit %d", code)
	}

	// A corrupt file: exit 1 and no output file.
	bad := filepath.Join(t.TempDir(), "bad.html")
	corrupt, _ := filepath.Glob(filepath.Join(dir, "corrupt", "*.bin"))
	if len(corrupt) == 0 {
		t.Fatal("no corrupt vectors")
	}
	if code, _, stderr := runCLI("report", corrupt[0], "-o", bad); code != exitBad || stderr == "" {
		t.Errorf("corrupt input: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("output written for a corrupt file")
	}
	if code, _, _ := runCLI("report", filepath.Join(dir, "empty.bin")); code != exitUsage {
		t.Errorf("without -o: exit %d, want %d", code, exitUsage)
	}
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
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

// TestReportLabels reports a file whose samples carry label frames: the
// page has the labels' data and script; the same samples without label
// frames give a page without them.
func TestReportLabels(t *testing.T) {
	for _, labelled := range []bool{true, false} {
		var samples []writer.Sample
		for g := range 4 {
			frames := []tachyon.Frame{tachyon.WaitFrame("chan receive"), {File: "/src/a.go", Func: "app.handle", Line: 7}}
			if labelled {
				frames = append(frames, tachyon.LabelFrames([]tachyon.Label{{Key: "http.route", Value: []string{"/a", "/b"}[g%2]}})...)
			}
			for k := range 10 {
				samples = append(samples, writer.Sample{ThreadID: uint64(g + 1), Timestamp: uint64(1_000_000 + k*1000), Frames: frames})
			}
		}
		in := proftest.WriteSamples(t, writer.Options{StartTime: 1_000_000, Interval: 1000}, samples)
		code, stdout, stderr := runCLI("report", in, "-o", "-")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if has := strings.Contains(stdout, `"labels":{`) && strings.Contains(stdout, "labels-pick"); has != labelled {
			t.Errorf("labelled %v: page has the labels' data and script: %v", labelled, has)
		}
		if strings.Contains(stdout, tachyon.LabelFile) {
			t.Errorf("labelled %v: page names the label frames' file", labelled)
		}
	}
}

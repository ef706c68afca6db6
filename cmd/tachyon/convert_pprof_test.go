package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestViewerExports runs the pprof and speedscope converters and the
// collapsed flags through the CLI.
func TestViewerExports(t *testing.T) {
	in := testutil.Vectors(t, "tachyon", "threads_8.bin")
	tmp := t.TempDir()

	pb := filepath.Join(tmp, "out.pb.gz")
	if code, _, errs := runCLI("convert", "--to", "pprof", in, "-o", pb, "--type", "cpu"); code != exitOK {
		t.Fatalf("convert --to pprof: %d %s", code, errs)
	}
	r, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := profile.Parse(r)
	if err != nil {
		t.Fatal(err)
	}
	if p.SampleType[1].Type != "cpu" || len(p.Sample) == 0 {
		t.Errorf("pprof: %v, %d samples", p.SampleType[1], len(p.Sample))
	}
	if code, _, errs := runCLI("convert", "--to", "pprof", "--type", "heap", in, "-o", filepath.Join(tmp, "x.pb.gz")); code != exitBad || !strings.Contains(errs, "heap") {
		t.Errorf("--type heap: exit %d %q", code, errs)
	}

	js := filepath.Join(tmp, "out.json")
	if code, _, errs := runCLI("convert", "--to", "speedscope", "--top", "2", in, "-o", js); code != exitOK {
		t.Fatalf("convert --to speedscope: %d %s", code, errs)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Name     string `json:"name"`
		Profiles []struct {
			Name string `json:"name"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Name != "threads_8.bin" || len(doc.Profiles) != 3 || !strings.HasPrefix(doc.Profiles[2].Name, "other goroutines (6)") {
		t.Errorf("speedscope: %+v", doc)
	}
	if code, _, _ := runCLI("convert", "--to", "speedscope", "--top", "0", in, "-o", filepath.Join(tmp, "y.json")); code != exitBad {
		t.Errorf("--top 0: exit %d", code)
	}
	// A rejected input leaves no output file.
	bad := testutil.Vectors(t, "tachyon", "corrupt", "bad_magic.bin")
	none := filepath.Join(tmp, "none.pb.gz")
	if code, _, _ := runCLI("convert", "--to", "pprof", bad, "-o", none); code != exitBad {
		t.Errorf("corrupt input: exit %d", code)
	}
	if _, err := os.Stat(none); err == nil {
		t.Error("output written for a corrupt input")
	}

	code, out, errs := runCLI("collapsed", "--frames", "func", "--by-goroutine", "--state", "running", "--state", "runnable,syscall", in)
	if code != exitOK || out == "" {
		t.Fatalf("collapsed with flags: %d %s", code, errs)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(line, "goroutine ") || strings.Contains(line, ".py") {
			t.Errorf("collapsed line %q", line)
			break
		}
	}
	if code, _, _ := runCLI("collapsed", "--frames", "files", in); code != exitUsage {
		t.Errorf("--frames files: exit %d", code)
	}
}

// TestConvertPprofBinary converts the committed CPU-mode demo profile with
// --binary: the test binary, which links the demo's functions, names the
// main mapping and gives their start lines; a file that is not an
// executable is bad input that names it.
func TestConvertPprofBinary(t *testing.T) {
	in := filepath.Join(testutil.RepoRoot(), "testdata", "demo", "cpu.bin")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	const hotA = "github.com/gotachyon/profiler/internal/workload/demo.hotA"
	for _, c := range []struct {
		binary, mapping string
		start           int64
	}{
		{exe, exe, sourceLine(t, filepath.Join(testutil.RepoRoot(), "internal", "workload", "demo", "demo.go"), "func hotA(")},
		{"", "tachyon", 0}, // recorded by tachyon demo: main.main is in cmd/tachyon
	} {
		out := filepath.Join(tmp, "out.pprof")
		args := []string{"convert", "--to", "pprof", in, "-o", out}
		if c.binary != "" {
			args = append(args, "--binary", c.binary)
		}
		if code, _, errs := runCLI(args...); code != exitOK {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
		p := proftest.ReadPprof(t, out)
		if p.SampleType[1].Type != "cpu" || p.Mapping[0].File != c.mapping {
			t.Errorf("--binary %q: type %s, mapping %q; want cpu, %q", c.binary, p.SampleType[1].Type, p.Mapping[0].File, c.mapping)
		}
		for _, fn := range p.Function {
			if fn.Name == hotA && fn.StartLine != c.start {
				t.Errorf("--binary %q: %s starts at line %d, want %d", c.binary, hotA, fn.StartLine, c.start)
			}
		}
	}
	notExe := filepath.Join(tmp, "script.sh")
	if err := os.WriteFile(notExe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "none.pprof")
	if code, _, errs := runCLI("convert", "--to", "pprof", "--binary", notExe, in, "-o", out); code != exitBad || !strings.Contains(errs, "start lines") {
		t.Errorf("--binary of a shell script: exit %d %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written despite an unreadable --binary")
	}
}

// sourceLine returns the number of the first line of the file at path
// that starts with prefix.
func sourceLine(t *testing.T, path, prefix string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, prefix) {
			return int64(i + 1)
		}
	}
	t.Fatalf("%s: no line starts with %q", path, prefix)
	return 0
}

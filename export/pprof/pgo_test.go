package pprof

import (
	"bufio"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestPGO profiles testdata/pgoprog in CPU mode with gotachyon, which
// exports the profile to pprof at Stop (AtStop: start lines from its own
// executable), then builds the program's hot code with go build -pgo and
// checks that the compiler inlines the hot call site the profile shows:
// main.work's call of main.mix, too big to inline without a profile.
// The same file converted without the binary has no start lines, and go
// build refuses it.
func TestPGO(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	goCmd := testutil.Tool(t, "go")
	dir := t.TempDir()
	exe := filepath.Join(dir, "pgoprog")
	run(t, "", goCmd, "build", "-o", exe, "./testdata/pgoprog")
	live, tach := filepath.Join(dir, "live.pprof"), filepath.Join(dir, "cpu.bin")
	run(t, "", exe, "-tachyon", tach, "-pprof", live, "-d", "1s")

	p := proftest.ReadPprof(t, live)
	checkPGOProfile(t, p, exe)
	fromFile := writePprof(t, tach, Options{Binary: exe})
	if got, want := startLines(proftest.ReadPprof(t, fromFile)), startLines(p); !maps.Equal(got, want) {
		t.Errorf("start lines converting the file with Binary %v, at Stop %v", got, want)
	}

	target := pgoTarget(t)
	out := run(t, target, goCmd, "build", "-pgo="+live, "-gcflags=-d=pgodebug=1", "-o", filepath.Join(dir, "pgo"), ".")
	if !strings.Contains(out, "hot-budget check allows inlining for call main.mix") || !strings.Contains(out, "in function main.work") {
		t.Errorf("go build -pgo did not inline the hot call main.work -> main.mix:\n%s", out)
	}
	t.Logf("go build -pgo -gcflags=-d=pgodebug=1:\n%s", out)

	// Labels are sample labels in pprof, never frames: go build -pgo
	// reads the converted profile of a labelled file as the same profile.
	labelled := writePprof(t, withLabels(t, tach, filepath.Join(dir, "labelled.bin")), Options{Binary: exe})
	out = run(t, target, goCmd, "build", "-pgo="+labelled, "-gcflags=-d=pgodebug=1", "-o", filepath.Join(dir, "pgolabelled"), ".")
	if !strings.Contains(out, "hot-budget check allows inlining for call main.mix") {
		t.Errorf("go build -pgo of a labelled file's profile did not inline the hot call main.work -> main.mix:\n%s", out)
	}

	noLines := writePprof(t, tach, Options{})
	cmd := exec.Command(goCmd, "build", "-pgo="+noLines, "-o", filepath.Join(dir, "nopgo"), ".")
	cmd.Dir = target
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "start_line") {
		t.Errorf("go build -pgo of a profile without start lines: %v\n%s", err, b)
	}
}

// withLabels copies the Tachyon file in to out with the label frames of
// route=/hot and task=pgo on every sample, and returns out.
func withLabels(t *testing.T, in, out string) string {
	t.Helper()
	f := proftest.Open(t, in)
	w, err := writer.Create(out, writer.Options{StartTime: f.Header.StartTime, Interval: f.Header.Interval, Compression: f.Header.Compression})
	if err != nil {
		t.Fatal(err)
	}
	labels := tachyon.LabelFrames([]tachyon.Label{{Key: "route", Value: "/hot"}, {Key: tachyon.LabelTask, Value: "pgo"}})
	it := f.Samples()
	defer it.Close()
	var frames []tachyon.Frame
	for it.Next() {
		s := it.Sample()
		frames = append(it.Frames(frames[:0]), labels...)
		ws := writer.Sample{ThreadID: s.ThreadID, InterpreterID: s.InterpreterID, Timestamp: s.Timestamp, Status: s.Status, Frames: frames}
		if err := w.WriteSample(&ws); err != nil {
			t.Fatal(err)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkPGOProfile checks p, pgoprog's CPU profile: a cpu type, the main
// mapping named after exe, and the start lines of main.work (inlined into
// main.main: from DWARF) and main.mix, as hot.go declares them.
func checkPGOProfile(t *testing.T, p *profile.Profile, exe string) {
	t.Helper()
	if sampleTypes(p) != "samples/count cpu/nanoseconds" || p.Mapping[0].File != exe {
		t.Errorf("sample types %s, mapping %s; want a CPU profile of %s", sampleTypes(p), p.Mapping[0].File, exe)
	}
	got := startLines(p)
	for _, fn := range []string{"work", "mix"} {
		want := declLine(t, filepath.Join("testdata", "pgoprog", "hot.go"), "func "+fn+"(")
		if got["main."+fn] != want {
			t.Errorf("main.%s: start line %d, want %d", fn, got["main."+fn], want)
		}
	}
}

// pgoTarget returns a module holding pgoprog's hot.go and a main that
// calls work, so that go build -pgo compiles the profiled functions
// without rebuilding the profiler's dependencies under the profile.
func pgoTarget(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	hot, err := os.ReadFile(filepath.Join("testdata", "pgoprog", "hot.go"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":  "module pgotarget\n\ngo 1.26\n",
		"main.go": "package main\n\nfunc main() { work(1) }\n",
		"hot.go":  string(hot),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run runs name with args in dir ("" for the package's) and returns its
// combined output, failing the test if it fails.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// writePprof converts the Tachyon file at in with o to a file and returns
// its path.
func writePprof(t *testing.T, in string, o Options) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.pprof")
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := Write(w, proftest.Open(t, in), o); err != nil {
		t.Fatal(err)
	}
	return out
}

// startLines returns the start line of each of p's functions.
func startLines(p *profile.Profile) map[string]int64 {
	m := map[string]int64{}
	for _, fn := range p.Function {
		m[fn.Name] = fn.StartLine
	}
	return m
}

// declLine returns the line of the file at path that starts with prefix.
func declLine(t *testing.T, path, prefix string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := int64(1); sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), prefix) {
			return n
		}
	}
	t.Fatalf("%s: no line starts with %q", path, prefix)
	return 0
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// pgoProg is the program export/pprof's TestPGO profiles: main.work's
// call of main.mix is hot, and only a profile makes the compiler inline
// it.
const pgoProg = "../../export/pprof/testdata/pgoprog"

// TestPGOCommand profiles pgoprog, makes a wall profile of it (its CPU
// samples and a goroutine parked all along, with many more samples), and
// checks the guard rails: tachyon pgo refuses to run without --binary and
// says why; with it, it writes the on-CPU samples only, which the real go
// build -pgo reads, inlining the hot call, and warns of nothing; convert
// refuses a .pgo output without --binary or of a wall profile, and notes
// that a wall profile with --binary is no PGO profile.
func TestPGOCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program, and go build -pgo")
	}
	goCmd := testutil.Tool(t, "go")
	dir := t.TempDir()
	exe := filepath.Join(dir, "pgoprog")
	pgoRun(t, "", goCmd, "build", "-o", exe, pgoProg)
	cpu := filepath.Join(dir, "cpu.bin")
	pgoRun(t, "", exe, "-tachyon", cpu, "-pprof", filepath.Join(dir, "live.pprof"), "-d", "1s")
	wall, onCPU := withParked(t, cpu, filepath.Join(dir, "wall.bin"))

	code, _, errs := runCLI("pgo", wall, "-o", filepath.Join(dir, "default.pgo"))
	if code != exitUsage || !strings.Contains(errs, "needs --binary PROG") || !strings.Contains(errs, "start line") {
		t.Errorf("pgo without --binary: exit %d, stderr %q; want exit 2 saying why --binary", code, errs)
	}
	pgoFile := filepath.Join(dir, "default.pgo")
	code, out, errs := runCLI("pgo", wall, "--binary", exe, "-o", pgoFile)
	if code != exitOK || !strings.Contains(out, "samples on a CPU") || !strings.Contains(out, "left out") {
		t.Fatalf("pgo: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	p := proftest.ReadPprof(t, pgoFile)
	var n int64
	for _, s := range p.Sample {
		n += s.Value[0]
	}
	if n != onCPU || len(p.SampleType) != 2 || p.SampleType[1].Type != "cpu" {
		t.Errorf("pgo profile: %d samples of types %v, want the %d on-CPU samples, cpu", n, p.SampleType, onCPU)
	}
	target := pgoTargetModule(t)
	built := pgoRun(t, target, goCmd, "build", "-pgo="+pgoFile, "-gcflags=-d=pgodebug=1", "-o", filepath.Join(dir, "pgo"), ".")
	if !strings.Contains(built, "hot-budget check allows inlining for call main.mix") {
		t.Errorf("go build -pgo of tachyon pgo's profile did not inline the hot call main.work -> main.mix:\n%s", built)
	}

	// convert's guard rails.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--type", "cpu", wall, "-o", filepath.Join(dir, "x.pgo")}, exitUsage, "tachyon pgo FILE --binary PROG"},
		{[]string{"--binary", exe, wall, "-o", filepath.Join(dir, "y.pgo")}, exitUsage, "wall profile"},
		{[]string{"--binary", exe, wall, "-o", filepath.Join(dir, "w.pprof")}, exitOK, "note: a wall profile"},
		{[]string{"--type", "cpu", wall, "-o", filepath.Join(dir, "c.pprof")}, exitOK, "note: without --binary"},
	} {
		code, _, errs := runCLI(append([]string{"convert", "--to", "pprof"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("convert %q: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	for _, name := range []string{"x.pgo", "y.pgo"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("a refused conversion wrote %s", name)
		}
	}
	// A CPU profile with --binary converts as before, without a note.
	if code, _, errs := runCLI("convert", "--to", "pprof", "--binary", exe, cpu, "-o", filepath.Join(dir, "ok.pgo")); code != exitOK || errs != "" {
		t.Errorf("convert of a CPU profile with --binary to .pgo: exit %d, stderr %q", code, errs)
	}
}

// withParked copies the Tachyon file in to out, adding a goroutine
// parked on a channel at every sample's time, and returns out and the
// number of on-CPU samples.
func withParked(t *testing.T, in, out string) (string, int64) {
	t.Helper()
	f := proftest.Open(t, in)
	w, err := writer.Create(out, writer.Options{StartTime: f.Header.StartTime, Interval: f.Header.Interval})
	if err != nil {
		t.Fatal(err)
	}
	parked := []tachyon.Frame{tachyon.WaitFrame("chan receive"), {File: "/src/main.go", Func: "main.wait", Line: 5}}
	var onCPU int64
	it := f.Samples()
	defer it.Close()
	var frames []tachyon.Frame
	for it.Next() {
		s := it.Sample()
		if s.Status.OnCPU() {
			onCPU++
		}
		ws := writer.Sample{ThreadID: s.ThreadID, Timestamp: s.Timestamp, Status: s.Status, Frames: it.Frames(frames[:0])}
		if err := w.WriteSample(&ws); err != nil {
			t.Fatal(err)
		}
		for k := range 3 { // three parked goroutines
			if err := w.WriteSample(&writer.Sample{ThreadID: 1_000_000 + uint64(k), Timestamp: s.Timestamp, Frames: parked}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if onCPU == 0 {
		t.Fatal("pgoprog's profile has no on-CPU sample")
	}
	return out, onCPU
}

// pgoTargetModule returns a module holding pgoprog's hot.go and a main
// that calls work, for go build -pgo (as export/pprof's TestPGO).
func pgoTargetModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	hot, err := os.ReadFile(filepath.Join(pgoProg, "hot.go"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"go.mod":  "module pgotarget\n\ngo 1.26\n",
		"main.go": "package main\n\nfunc main() { work(1) }\n",
		"hot.go":  string(hot),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// pgoRun runs name with args in dir and returns its combined output,
// failing the test if it fails.
func pgoRun(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestPGOWrongBinary: a --binary that has none of the profile's functions
// gives none of them a start line, and go build -pgo fails on such a
// profile ("profile missing Function.start_line data"); tachyon pgo
// refuses it and writes nothing.
func TestPGOWrongBinary(t *testing.T) {
	exe, err := os.Executable() // a Go binary without the profile's functions
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "cpu.bin")
	w, err := writer.Create(in, writer.Options{StartTime: 1_000_000, Interval: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	frames := []tachyon.Frame{{File: "/elsewhere/main.go", Func: "main.notInThisBinary", Line: 7}, {File: "/elsewhere/main.go", Func: "main.outerNotInThisBinary", Line: 3}}
	for i := 0; i < 3; i++ {
		if err := w.WriteSample(&writer.Sample{ThreadID: 1, Timestamp: 1_010_000 + uint64(i)*10_000, Status: tachyon.StatusOnCPU | tachyon.StatusHasGIL, Frames: frames}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "default.pgo")
	code, _, errs := runCLI("pgo", in, "--binary", exe, "-o", out)
	if code != exitBad || !strings.Contains(errs, "start line") || !strings.Contains(errs, "profiled binary") {
		t.Errorf("pgo with a binary that lacks every function: exit %d, stderr %q; want exit %d naming the missing start lines", code, errs, exitBad)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the refused profile was written")
	}
}

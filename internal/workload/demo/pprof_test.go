package demo_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/gotachyon/profiler"
	tpprof "github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/workload/demo"
	"github.com/gotachyon/profiler/reader"
)

// TestPprofTop profiles the demo in wall mode beside runtime/pprof's CPU
// profile of the same run (the profiler shares it), exports the wall
// profile to pprof and reads it with go tool pprof -top, as a user would.
// The default value (on_cpu) must tell the spinning goroutine's CPU time
// as runtime/pprof does: every function's flat share within 2 points, the
// clock the demo reads every 500 steps (cputime.Thread and the system
// call under it) too, and demo.hotA and demo.hotB first of the program's
// own functions. Which of them comes first overall is the machine's: where
// a thread-clock read costs more than 500 steps of work (about 2 µs
// against 1 µs on a VM), the system call under it is the widest.
func TestPprofTop(t *testing.T) {
	if testing.Short() {
		t.Skip("profiles the demo for seconds")
	}
	tool := testutil.PprofTool(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.bin")
	var cpu bytes.Buffer
	if err := pprof.StartCPUProfile(&cpu); err != nil {
		t.Fatal(err)
	}
	p := profiler.Start(profiler.WithPath(path), profiler.WithQuiet(true))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	_, err := demo.Run(ctx, demo.Config{})
	cancel()
	serr := p.Stop()
	pprof.StopCPUProfile()
	if err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	out := exportPprof(t, path, filepath.Join(dir, "demo.pb.gz"))
	cmd := exec.Command(tool, "-top", "-nodecount=50", out)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "HOME="+t.TempDir())
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -top: %v\n%s", err, b)
	}
	t.Logf("go tool pprof -top %s:\n%s", out, b)
	if own := ownFuncs(string(b)); len(own) < 2 || !slices.Equal(own[:2], []string{"demo.hotA", "demo.hotB"}) && !slices.Equal(own[:2], []string{"demo.hotB", "demo.hotA"}) {
		t.Errorf("the program's first functions in go tool pprof -top: %q, want demo.hotA and demo.hotB", own)
	}

	ob, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := spinShares(t, ob), spinShares(t, cpu.Bytes())
	for fn, want := range theirs.flat {
		got := ours.flat[fn]
		t.Logf("%-60s flat %5.1f%% (runtime/pprof %5.1f%%)", fn, 100*got, 100*want)
		if math.Abs(got-want) > 0.02 {
			t.Errorf("%s: %.1f%% of demo.spin's on-CPU time, runtime/pprof %.1f%%: want within 2 points", fn, 100*got, 100*want)
		}
	}
	got, want := ours.cum["cputime.Thread"], theirs.cum["cputime.Thread"]
	t.Logf("cputime.Thread and below: %.1f%% (runtime/pprof %.1f%%)", 100*got, 100*want)
	if math.Abs(got-want) > 0.02 {
		t.Errorf("cputime.Thread and below: %.1f%% of demo.spin's on-CPU time, runtime/pprof %.1f%%: want within 2 points", 100*got, 100*want)
	}
}

// exportPprof converts the Tachyon file at path to a pprof file at out.
func exportPprof(t *testing.T, path, out string) string {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := tpprof.Write(w, f, tpprof.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// ownFuncs returns the functions of go tool pprof -top's rows that are the
// program's own (outside the standard library), in order, without their
// module path.
func ownFuncs(top string) []string {
	var own []string
	for _, line := range strings.Split(top, "\n") {
		fs := strings.Fields(line)
		if len(fs) < 6 || !strings.HasSuffix(fs[1], "%") {
			continue
		}
		fn := fs[5]
		if first, _, _ := strings.Cut(fn, "/"); !strings.Contains(first, ".") {
			continue // the standard library: no domain in its path
		}
		if i := strings.LastIndexByte(fn, '/'); i >= 0 {
			fn = fn[i+1:]
		}
		own = append(own, fn)
	}
	return own
}

// shares are the flat and cumulative shares of functions, by name without
// the module path, in the on-CPU time of the demo's spinning goroutine.
type shares struct{ flat, cum map[string]float64 }

// spinShares reads a pprof profile's default (first, for runtime/pprof's)
// value for the samples whose stack holds demo.spin. Frames of unexported
// runtime functions are left out, as the sampler leaves them out (package
// sampler's doc, Frames): runtime/pprof's stacks of a goroutine
// interrupted by an asynchronous preemption end in runtime.asyncPreempt,
// which the profiler's stacks fold into the function it interrupted, and
// a loaded machine preempts the spinning goroutine often.
func spinShares(t *testing.T, data []byte) shares {
	t.Helper()
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	vi := 0
	for i, st := range p.SampleType {
		if st.Type == p.DefaultSampleType {
			vi = i
		}
	}
	sh := shares{flat: map[string]float64{}, cum: map[string]float64{}}
	var all float64
	for _, s := range p.Sample {
		var names []string
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				n := ln.Function.Name
				if unexportedRuntime(n) {
					continue
				}
				if i := strings.LastIndexByte(n, '/'); i >= 0 {
					n = n[i+1:]
				}
				names = append(names, n)
			}
		}
		if !slices.Contains(names, "demo.spin") || s.Value[vi] == 0 {
			continue
		}
		v := float64(s.Value[vi])
		all += v
		sh.flat[names[0]] += v
		seen := map[string]bool{}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				sh.cum[n] += v
			}
		}
	}
	if all == 0 {
		t.Fatal("no on-CPU samples of demo.spin")
	}
	for _, m := range []map[string]float64{sh.flat, sh.cum} {
		for k := range m {
			m[k] /= all
		}
	}
	return sh
}

// unexportedRuntime reports whether fn is an unexported function of
// package runtime (runtime. followed by anything but an upper-case
// letter), as the sampler's frame rule reads it.
func unexportedRuntime(fn string) bool {
	name, ok := strings.CutPrefix(fn, "runtime.")
	return ok && (name == "" || name[0] < 'A' || name[0] > 'Z')
}

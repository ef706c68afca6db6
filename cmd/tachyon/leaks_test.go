package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/cputime"
	"github.com/gotachyon/profiler/internal/workload/leakload"
	"github.com/gotachyon/profiler/sampler"
)

// leakChildEnv makes the test binary the leaking program of
// TestLeaksNamesTheLeak: it profiles itself into the file the variable
// names, and prints its sites.
const leakChildEnv = "TACHYON_LEAK_CHILD"

func init() {
	if path := os.Getenv(leakChildEnv); path != "" {
		os.Exit(leakChild(path))
	}
}

// leakChild profiles, into path, 4 s of a program that leaks 100
// goroutines a second beside 1,000 healthy workers woken about every
// 200 ms, and prints the creation sites and counts it recorded.
func leakChild(path string) int {
	opts := []profiler.Option{profiler.WithPath(path), profiler.WithQuiet(true), profiler.WithLeakProfile(time.Second)}
	if seg := os.Getenv(leakChildEnv + "_SEGMENT"); seg != "" {
		d, _ := time.ParseDuration(seg)
		opts = append(opts, profiler.WithSegment(d))
	}
	// The workers are there before the profile, as a service's are.
	l := leakload.Start(1000, 200*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	p := profiler.Start(opts...)
	if err := p.Err(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	l.Leak(100)
	t0 := time.Now()
	time.Sleep(4 * time.Second)
	leaked, jobs := l.Stop()
	el := time.Since(t0)
	if err := p.Stop(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	st := p.Stats()
	os.Stdout.WriteString("leakprofiles=" + strconv.Itoa(st.LeakProfiles) + "\nleakmarked=" + strconv.Itoa(st.LeakMarked) + "\nleaknote=" + st.LeakProfile + "\n")
	os.Stdout.WriteString("leak=" + l.LeakSite + "\nworker=" + l.WorkerSite + "\nleaked=" + strconv.FormatInt(leaked, 10) +
		"\njobs=" + strconv.FormatInt(jobs, 10) + "\nseconds=" + strconv.FormatFloat(el.Seconds(), 'f', 3, 64) + "\n")
	return 0
}

// runLeakChild runs the leaking program into path and returns what it
// recorded.
func runLeakChild(t *testing.T, path string, env ...string) map[string]string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), leakChildEnv+"="+path), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("leaking program: %v\n%s", err, errb.String())
	}
	rec := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			rec[k] = v
		}
	}
	return rec
}

// TestLeaksNamesTheLeak is the acceptance test of tachyon leaks: a
// program that leaks 100 goroutines a second on unbuffered channels
// nobody reads, beside 1,000 healthy workers: the leaking creation site
// comes first, its count grows about 100 a second, and the workers are
// not listed.
func TestLeaksNamesTheLeak(t *testing.T) {
	path := filepath.Join(t.TempDir(), "leak.tachyon")
	rec := runLeakChild(t, path)
	var out, errb bytes.Buffer
	if code := run([]string{"leaks", path}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	t.Logf("the program's record: %v\n%s", rec, out.String())
	checkLeakOutput(t, out.String(), rec)
}

// checkLeakOutput checks tachyon leaks' output against the leaking
// program's record.
func checkLeakOutput(t *testing.T, out string, rec map[string]string) {
	t.Helper()
	first := regexp.MustCompile(`(?m)^#1  created at (.*)\n    (\d+) blocked at the end; grows ([0-9.]+)/s`).FindStringSubmatch(out)
	if first == nil {
		t.Fatalf("no growing group first:\n%s", out)
	}
	if first[1] != rec["leak"] {
		t.Errorf("first group created at %q, the program leaks at %q", first[1], rec["leak"])
	}
	rate, _ := strconv.ParseFloat(first[3], 64)
	leaked, _ := strconv.ParseFloat(rec["leaked"], 64)
	secs, _ := strconv.ParseFloat(rec["seconds"], 64)
	want := leaked / secs
	if rate < want*0.8 || rate > want*1.2 {
		t.Errorf("grows %.1f/s, the program leaked %.0f in %.2f s (%.1f/s)", rate, leaked, secs, want)
	}
	if strings.Contains(out, "created at "+rec["worker"]) {
		t.Errorf("the healthy workers (%s) are listed", rec["worker"])
	}
	if strings.Count(out, "\n#") != 1 {
		t.Errorf("%d groups listed, want the leak alone", strings.Count(out, "\n#"))
	}
	// With the goroutine leak profile (Go 1.27), every leaked goroutine
	// blocked through the last slice is proved unreachable; without, the
	// program says why.
	if sampler.LeakProfileAvailable() {
		m := regexp.MustCompile(`can never wake: (\d+) of (\d+)`).FindStringSubmatch(out)
		if m == nil || m[1] != m[2] || m[1] != first[2] {
			t.Errorf("the leak is not marked unreachable in full (%v), leak profiles %s, marked %s", m, rec["leakprofiles"], rec["leakmarked"])
		}
	} else if !strings.Contains(rec["leaknote"], "unavailable") || !strings.Contains(out, "no goroutine is marked unreachable") {
		t.Errorf("without the leak profile: the program says %q", rec["leaknote"])
	}
}

// TestLeaksAcrossSegments reads the leaking program's run as 1-second
// segments: one slice a segment, the leak first and growing about 100 a
// second across them.
func TestLeaksAcrossSegments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "segments")
	rec := runLeakChild(t, dir, leakChildEnv+"_SEGMENT=1s")
	var out, errb bytes.Buffer
	if code := run([]string{"leaks", dir}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	t.Logf("the program's record: %v\n%s", rec, out.String())
	if !regexp.MustCompile(`in [45] slices`).MatchString(out.String()) {
		t.Errorf("not cut in a slice a segment of a second")
	}
	checkLeakOutput(t, out.String(), rec)
}

// TestLeaksErrors checks the command's refusals: no file, a bad flag, a
// file that is not a profile (named, exit 1), a CPU profile.
func TestLeaksErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tachyon")
	if err := os.WriteFile(bad, []byte("not a profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	cpu := filepath.Join(dir, "cpu.tachyon")
	p := profiler.Start(profiler.WithPath(cpu), profiler.WithMode(profiler.CPU), profiler.WithQuiet(true))
	// CPU time, not the clock: beside other processes 200 ms of the clock
	// once gave no CPU sample, and a profile without samples is no CPU
	// profile.
	runtime.LockOSThread()
	for c0 := cputime.Thread(); cputime.Thread()-c0 < 300*time.Millisecond; {
	}
	runtime.UnlockOSThread()
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, exitUsage, "needs a FILE"},
		{[]string{"--slices", "-1", bad}, exitUsage, "--slices"},
		{[]string{bad}, exitBad, bad},
		{[]string{cpu}, exitBad, "leaks needs a wall-mode profile"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"leaks"}, c.args...), &out, &errb); code != c.code || !strings.Contains(errb.String(), c.msg) {
			t.Errorf("leaks %v: exit %d, %q; want %d and %q", c.args, code, errb.String(), c.code, c.msg)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/tachyon"
)

// TestHostileSuite runs every reading command on every hostile file, each
// in its own process under a 1 GB address-space limit (ulimit -v): it must
// exit 0, or 1 with a message naming the file, within 30 s of CPU time;
// never 2, a fatal runtime error or a signal. CPU time, not the clock:
// beside other processes a command that did its work in 6 s of CPU took
// three times as long to finish (a hang, which uses no CPU, is caught by
// a wall-clock limit of three minutes). The files are generated, not committed:
// decompression bombs (50 M samples, and the most a file can declare),
// distinct deep stacks, a stack as deep as the reader accepts whose
// innermost frame changes again and again, among two stacks or among more
// than an export's caches hold, a hundred and fifty threads each as deep
// whose innermost frames change, a 1 MiB name in a stack as deep as the
// reader accepts, many threads, frames and strings, and frames naming /proc,
// /sys and /dev files (converted with --source too).
// The CLI is built without the race detector, whose memory would not fit.
// The commands run side by side, as many as -parallel allows (GOMAXPROCS):
// each is a process of its own, most of them using less than a core.
func TestHostileSuite(t *testing.T) {
	dir := t.TempDir()
	cli := filepath.Join(dir, "tachyon")
	if out, err := exec.Command("go", "build", "-o", cli, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	files := map[string][]byte{
		"bomb":          hostile.Bomb(50_000_000),
		"max-bomb":      hostile.MaxBomb(),
		"deep-distinct": hostile.DeepDistinct(4096),
		"deep-alt":      hostile.DeepAlternating(100_000),
		"deep-cycle":    hostile.DeepCycling(128, 300_000),
		"deep-threads":  hostile.DeepThreads(150, 10),
		"huge-name":     hostile.HugeName(1<<20, tachyon.MaxReadDepth),
		"threads":       hostile.ManyThreads(1_000_000),
		"frames":        hostile.ManyFrames(1_000_000),
		"strings":       hostile.ManyStrings(10_000_000),
		"proc-names":    hostile.ProcNames(),
	}
	commands := [][]string{
		{"info"}, {"verify"}, {"dump"}, {"collapsed"}, {"report", "-o", "OUT.html"}, {"leaks"},
		{"convert", "--to", "pprof", "-o", "OUT.pb"},
		{"convert", "--to", "speedscope", "-o", "OUT.json"},
		{"convert", "--to", "nytprof", "-o", "OUT.nyt"},
		{"convert", "--to", "nytprof", "--source", "-o", "OUT.src.nyt"},
		{"convert", "--to", "spx", "-o", "OUT.spx"},
		{"convert", "--to", "dcpi", "--binary", cli, "-o", "OUT.dcpi"},
	}
	for name, data := range files {
		in := filepath.Join(dir, name+".bin")
		if err := os.WriteFile(in, data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, c := range commands {
			args := make([]string, len(c))
			for i, a := range c {
				args[i] = strings.ReplaceAll(a, "OUT", filepath.Join(dir, "out-"+name))
			}
			args = append(args, in)
			t.Run(name+"/"+strings.Join(c[:min(len(c), 3)], "-"), func(t *testing.T) {
				t.Parallel()
				underLimit(t, cli, in, args)
			})
		}
	}
}

// The limits of each command of the hostile suite: the work it may do
// (user and system CPU time of all its threads), and how long it may take
// (a hang).
const (
	hostileCPU  = 30 * time.Second
	hostileWall = 3 * time.Minute
)

// underLimit runs cli with args under a 1 GB address-space limit and checks
// how it ends.
func underLimit(t *testing.T, cli, in string, args []string) {
	ctx, cancel := context.WithTimeout(context.Background(), hostileWall)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{"-c", `ulimit -v 1048576 && exec "$0" "$@"`, cli}, args...)...)
	var stderr bytes.Buffer
	// verify reports on stdout; dump's output is large: a file, read after.
	stdout, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	cmd.Stderr, cmd.Stdout = &stderr, stdout
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start).Round(time.Millisecond)
	out := make([]byte, 4096)
	n, _ := stdout.ReadAt(out, 0)
	msg := stderr.String() + string(out[:n])
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("still running after %v", took)
	case cmd.ProcessState != nil && cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime() > hostileCPU:
		t.Fatalf("%v of CPU time (in %v), want at most %v", cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime(), took, hostileCPU)
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() == exitBad:
		if !strings.Contains(msg, in) {
			t.Fatalf("exit 1 in %v without naming the file: %q", took, msg)
		}
	default:
		t.Fatalf("%v in %v: %.300s", err, took, msg)
	}
}

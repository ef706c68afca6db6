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

	"github.com/gotachyon/profiler/internal/hostile"
)

// TestHostileSuite runs every reading command on every hostile file, each
// in its own process under a 1 GB address-space limit (ulimit -v): it must
// exit 0, or 1 with a message naming the file, within 30 s; never 2, a
// fatal runtime error or a signal. The files are generated, not committed.
// The CLI is built without the race detector, whose memory would not fit.
func TestHostileSuite(t *testing.T) {
	dir := t.TempDir()
	cli := filepath.Join(dir, "tachyon")
	if out, err := exec.Command("go", "build", "-o", cli, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	files := map[string][]byte{
		"bomb":          hostile.Bomb(50_000_000),
		"deep-distinct": hostile.DeepDistinct(4096),
		"threads":       hostile.ManyThreads(300_000),
		"frames":        hostile.ManyFrames(300_000),
		"strings":       hostile.ManyStrings(10_000_000),
	}
	commands := [][]string{
		{"info"}, {"verify"}, {"dump"}, {"collapsed"}, {"report", "-o", "OUT.html"},
		{"convert", "--to", "pprof", "-o", "OUT.pb"},
		{"convert", "--to", "speedscope", "-o", "OUT.json"},
		{"convert", "--to", "nytprof", "-o", "OUT.nyt"},
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
				underLimit(t, cli, in, args)
			})
		}
	}
}

// underLimit runs cli with args under a 1 GB address-space limit and checks
// how it ends.
func underLimit(t *testing.T, cli, in string, args []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{"-c", `ulimit -v 1048576 && exec "$0" "$@"`, cli}, args...)...)
	var stderr bytes.Buffer
	stdout := &head{n: 4096} // verify reports on stdout; dump's output is large
	cmd.Stderr, cmd.Stdout = &stderr, stdout
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start).Round(time.Millisecond)
	msg := stderr.String() + stdout.String()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("still running after %v", took)
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() == exitBad:
		if !strings.Contains(msg, in) {
			t.Fatalf("exit 1 in %v without naming the file: %q", took, msg)
		}
	default:
		t.Fatalf("%v in %v: %.300s", err, took, msg)
	}
}

// head keeps the first n bytes written to it and discards the rest.
type head struct {
	bytes.Buffer
	n int
}

func (h *head) Write(p []byte) (int, error) {
	if room := h.n - h.Len(); room > 0 {
		h.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// runCLI runs the CLI in-process and returns exit code, stdout and stderr.
func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCoreCommands(t *testing.T) {
	dir := testutil.Vectors(t, "tachyon")
	tmp := t.TempDir()
	for _, name := range []string{"all_encodings", "threads_8", "unicode_long", "empty"} {
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(dir, name+".bin")
			wantDump, _ := os.ReadFile(filepath.Join(dir, name+".jsonl"))
			wantFolded, _ := os.ReadFile(filepath.Join(dir, name+".collapsed.txt"))

			code, out, _ := runCLI("verify", bin, filepath.Join(dir, name+".zstd.bin"))
			if code != exitOK || strings.Count(out, ": ok\n") != 2 {
				t.Fatalf("verify: %d %q", code, out)
			}
			code, out, _ = runCLI("dump", filepath.Join(dir, name+".zstd.bin"))
			if code != exitOK || out != string(wantDump) {
				t.Errorf("dump: exit %d, output differs from %s.jsonl", code, name)
			}
			code, out, _ = runCLI("collapsed", bin)
			if code != exitOK || out != string(wantFolded) {
				t.Errorf("collapsed: exit %d, output differs", code)
			}
			raw := filepath.Join(tmp, name+".raw.bin")
			if code, _, errs := runCLI("encode", "--compress", "none", filepath.Join(dir, name+".input.jsonl"), raw); code != exitOK {
				t.Fatalf("encode: %d %s", code, errs)
			}
			got, _ := os.ReadFile(raw)
			want, _ := os.ReadFile(bin)
			if !bytes.Equal(got, want) {
				t.Errorf("encode --compress none is not byte-identical to %s.bin", name)
			}
			z := filepath.Join(tmp, name+".z.bin")
			if code, _, errs := runCLI("encode", filepath.Join(dir, name+".input.jsonl"), z); code != exitOK {
				t.Fatalf("encode zstd: %d %s", code, errs)
			}
			code, out, _ = runCLI("info", z)
			if code != exitOK || !strings.Contains(out, "compression:   zstd") || !strings.Contains(out, "records:") {
				t.Errorf("info: %d\n%s", code, out)
			}
		})
	}
}

func TestExitCodes(t *testing.T) {
	dir := testutil.Vectors(t, "tachyon")
	bad := filepath.Join(dir, "corrupt", "pop_past_depth.bin")
	code, out, _ := runCLI("verify", filepath.Join(dir, "recursion.bin"), bad)
	if code != exitBad || !strings.Contains(out, bad+": offset ") || !strings.Contains(out, "E_POP_DEPTH") {
		t.Errorf("verify corrupt: exit %d, %q", code, out)
	}
	for _, cmd := range []string{"dump", "collapsed", "info"} {
		code, out, errs := runCLI(cmd, bad)
		if code != exitBad || out != "" || !strings.Contains(errs, bad) || !strings.Contains(errs, "offset") {
			t.Errorf("%s corrupt: exit %d, stdout %q, stderr %q", cmd, code, out, errs)
		}
	}
	for _, args := range [][]string{{}, {"nosuch"}, {"dump"}, {"encode", "--compress", "lz4", "a", "b"}, {"verify"}} {
		if code, _, _ := runCLI(args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	if code, _, errs := runCLI("dump", filepath.Join(t.TempDir(), "missing.bin")); code != exitBad || !strings.Contains(errs, "missing.bin") {
		t.Errorf("missing file: %d %q", code, errs)
	}
}

// TestEncodeRejectsBackwardTimestamps: the format's deltas are unsigned, so
// encode refuses a step back with the line, rather than writing it as 0.
func TestEncodeRejectsBackwardTimestamps(t *testing.T) {
	dir := t.TempDir()
	meta := `{"meta": {"start_time_us": 100, "interval_us": 10}}` + "\n"
	line := func(ts int) string {
		return `{"thread_id": 1, "interpreter_id": 0, "timestamp_us": ` + strconv.Itoa(ts) + `, "status": 0, "stack": [["a.go", "f", 1]]}` + "\n"
	}
	for _, c := range []struct {
		name, input, want string
	}{
		{"before start", meta + line(5), "line 2: timestamp 5 is before the start time 100"},
		{"backward", meta + line(120) + line(110), "line 3: timestamp 110 of thread 1 goes back from its previous 120"},
		{"no meta", line(120), "line 1: first line must be {\"meta\": {...}}, and has no \"meta\" key"},
	} {
		in := filepath.Join(dir, "in.jsonl")
		os.WriteFile(in, []byte(c.input), 0o600)
		out := filepath.Join(dir, "out.bin")
		code, _, errs := runCLI("encode", in, out)
		if code != exitBad || !strings.Contains(errs, c.want) || strings.Contains(errs, "<nil>") {
			t.Errorf("%s: exit %d, stderr %q; want %q", c.name, code, errs, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: left %s behind", c.name, out)
		}
	}
	if code, _, errs := runCLI("encode", filepath.Join(dir, "missing.jsonl"), filepath.Join(dir, "o.bin")); code != exitBad || errs == "" {
		t.Errorf("missing input: exit %d %q", code, errs)
	}
}

// TestVerifyFIFO: a FIFO is refused at once, not waited on.
func TestVerifyFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p.bin")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { code, _, _ := runCLI("verify", fifo); done <- code }()
	select {
	case code := <-done:
		if code != exitBad {
			t.Errorf("verify FIFO: exit %d, want %d", code, exitBad)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("verify FIFO blocked")
	}
}

// TestDeepDistinctStacksBounded converts a 2,048-sample file whose every
// sample is a new stack one frame deeper (2.1 M frames across distinct
// stacks): the aggregating exports refuse it past --max-stack-frames (and
// collapsed past --max-bytes), naming the flag, and pass within the
// default.
func TestDeepDistinctStacksBounded(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "deep.bin")
	if err := os.WriteFile(in, hostile.DeepDistinct(2048), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"pprof", "speedscope", "nytprof", "spx"} {
		out := filepath.Join(dir, "out."+to)
		code, _, errs := runCLI("convert", "--to", to, "--max-stack-frames", "1000000", in, "-o", out)
		if code != exitBad || !strings.Contains(errs, "more than 1000000 frames") || !strings.Contains(errs, "--max-stack-frames") || !strings.Contains(errs, in) {
			t.Errorf("%s: exit %d, %q", to, code, errs)
		}
		if _, err := os.Stat(out); err == nil && to != "spx" {
			t.Errorf("%s: left %s behind", to, out)
		}
		if code, _, errs := runCLI("convert", "--to", to, in, "-o", out); code != exitOK {
			t.Errorf("%s within the default limit: exit %d, %q", to, code, errs)
		}
	}
	code, _, errs := runCLI("collapsed", "--max-bytes", "1000000", in)
	if code != exitBad || !strings.Contains(errs, "more than 1000000 bytes") || !strings.Contains(errs, "--max-bytes") {
		t.Errorf("collapsed: exit %d, %q", code, errs)
	}
	if code, _, errs := runCLI("collapsed", in); code != exitOK {
		t.Errorf("collapsed within the default limit: exit %d, %q", code, errs)
	}
}

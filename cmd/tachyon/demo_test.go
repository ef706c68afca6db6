package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
)

func TestDemoCommand(t *testing.T) {
	for _, mode := range []string{"wall", "cpu"} {
		out := filepath.Join(t.TempDir(), mode+".bin")
		var stdout, stderr bytes.Buffer
		code := run([]string{"demo", "--o", out, "-mode", mode, "--duration", "300ms", "-goroutines", "5"}, &stdout, &stderr)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr.String())
		}
		for _, want := range []string{"wrote " + out, "hotA/hotB split", "backend "} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%s: output lacks %q:\n%s", mode, want, stdout.String())
			}
		}
		proftest.Validate(t, out)
	}
}

func TestDemoUsage(t *testing.T) {
	for _, args := range [][]string{{"-mode", "gpu"}, {"-duration", "0s"}, {"-backend", "x"}, {"-compression", "lz4"}, {"extra"}} {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"demo"}, args...), &stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

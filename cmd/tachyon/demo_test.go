package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
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

func TestSelfCommand(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "tachyon")
	goRun := filepath.Join(dir, "go-build123", "b001", "exe", "tachyon")
	hash := "eed592cb8a881649e6b7f278250521ba2ad9cc2dc7ff5ba58c3f4f53f85ebacb"
	cached := filepath.Join(dir, "cache", hash[:2], hash+"-d", "tachyon") // go run's second time
	notCached := filepath.Join(dir, "cache", "ff", hash+"-d", "tachyon")  // not its hash's directory
	for _, p := range []string{bin, goRun, cached, notCached} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	onPath := func(string) (string, error) { return bin, nil }
	notOnPath := func(string) (string, error) { return "", exec.ErrNotFound }
	root := testutil.RepoRoot()
	for _, c := range []struct {
		name, exe, arg0, cwd string
		look                 func(string) (string, error)
		want                 string
	}{
		{"go run at the root", goRun, goRun, root, notOnPath, "go run ./cmd/tachyon"},
		{"go run below the root", goRun, goRun, filepath.Join(root, "cmd"), onPath, "go run github.com/gotachyon/profiler/cmd/tachyon"},
		{"go run from the build cache", cached, cached, root, notOnPath, "go run ./cmd/tachyon"},
		{"a directory like the cache's", notCached, notCached, root, notOnPath, notCached},
		{"installed, on PATH", bin, "tachyon", dir, onPath, "tachyon"},
		{"by path", bin, "bin/tachyon", dir, notOnPath, "bin/tachyon"},
		{"by path, another on PATH", bin, "./bin/tachyon", dir, func(string) (string, error) { return goRun, nil }, "./bin/tachyon"},
		{"found nowhere", bin, "tachyon", dir, notOnPath, bin},
		{"a name to quote", "/a b/tachyon", "tachyon", dir, notOnPath, "'/a b/tachyon'"},
	} {
		if got := selfCommand(c.exe, c.arg0, c.cwd, c.look); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

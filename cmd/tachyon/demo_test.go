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

// TestReadmeFirstCommand runs the README's first command as a new user does
// on a fresh clone, in a copy of the module's root (symbolic links to its
// entries, so that the files the command writes stay out of the source
// tree), then follows the two lines it ends with: the report's file URL
// must name the HTML report it wrote, and the last line's command must run
// as printed.
func TestReadmeFirstCommand(t *testing.T) {
	goTool := testutil.Tool(t, "go")
	root := testutil.RepoRoot()
	cmd := readmeFirstCommand(t, filepath.Join(root, "README.md"))
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch name := e.Name(); {
		case name == ".git", strings.HasSuffix(name, ".bin"), strings.HasSuffix(name, ".html"):
		default:
			if err := os.Symlink(filepath.Join(root, name), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(goTool)+string(os.PathListSeparator)+"/usr/bin:/bin")
	sh := func(line string) string {
		t.Helper()
		c := exec.Command("sh", "-c", line)
		c.Dir, c.Env = dir, env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		return string(out)
	}
	lines := strings.Split(strings.TrimRight(sh(cmd), "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("%s: output too short: %q", cmd, lines)
	}
	open, next := lines[len(lines)-2], lines[len(lines)-1]
	u, ok := strings.CutPrefix(open, "open file://")
	u, ok2 := strings.CutSuffix(u, " in a browser")
	if !ok || !ok2 {
		t.Fatalf("next to last line %q, want \"open file://PATH in a browser\"", open)
	}
	if b, err := os.ReadFile(filepath.FromSlash(u)); err != nil || !bytes.HasPrefix(bytes.ToLower(bytes.TrimSpace(b)), []byte("<!doctype html>")) {
		t.Errorf("%s names no HTML report: %v", open, err)
	}
	if filepath.Dir(filepath.FromSlash(u)) != dir {
		t.Errorf("%s: the report is not in the directory the command ran in (%s)", open, dir)
	}
	run, ok := strings.CutPrefix(next, "next: ")
	if !ok || !strings.HasPrefix(run, "go run ./cmd/tachyon ") {
		t.Fatalf("last line %q, want \"next: go run ./cmd/tachyon ...\"", next)
	}
	if out := sh(run); !strings.Contains(out, "samples:") {
		t.Errorf("%s printed no profile facts:\n%s", run, out)
	}
}

// readmeFirstCommand returns the first line of the README's first sh block.
func readmeFirstCommand(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```sh\n")
	line, _, _ := strings.Cut(rest, "\n")
	if !ok || strings.TrimSpace(line) == "" {
		t.Fatalf("%s: no sh block", path)
	}
	return line
}

func TestSelfCommand(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "tachyon")
	goRun := filepath.Join(dir, "go-build123", "b001", "exe", "tachyon")
	for _, p := range []string{bin, goRun} {
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

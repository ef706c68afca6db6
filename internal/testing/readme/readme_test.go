package readme_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

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

// TestReadmeTestCommandIsCIs: the README's second command is the one CI
// runs (.ci/run adds only "|| exit 1"), so that a user who runs it gets
// CI's run, timeout included.
func TestReadmeTestCommandIsCIs(t *testing.T) {
	root := testutil.RepoRoot()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "```sh\n")
	lines := strings.SplitN(rest, "\n", 3)
	if len(lines) < 3 || strings.HasPrefix(lines[1], "```") {
		t.Fatalf("README.md: the first sh block has no second command")
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	// .ci/run runs it as a line of its own, indented in a subshell that
	// picks the toolchain, or followed by "|| exit 1".
	for _, line := range strings.Split(string(ci), "\n") {
		line = strings.TrimSpace(line)
		if line == lines[1] || line == lines[1]+" || exit 1" {
			return
		}
	}
	t.Errorf("README.md's test command %q is not a line of .ci/run", lines[1])
}

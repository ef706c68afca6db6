package readme_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// snippetWithin is how far into the README a new user reads before the
// first program that calls profiler.Start.
const snippetWithin = 60

// TestReadmeStartSnippet builds the README's first Go program as a new
// user does: in a module of their own beside the clone, with the commands
// of the sh block that follows it (replace, tidy, run), and with tachyon
// installed from the clone as the README's install section says. The
// program must write a profile that tachyon info and tachyon report read.
func TestReadmeStartSnippet(t *testing.T) {
	goTool := testutil.Tool(t, "go")
	root := testutil.RepoRoot()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	src, end := block(lines, "```go", 0)
	if end < 0 {
		t.Fatal("README.md: no go block")
	}
	if end >= snippetWithin || !strings.Contains(src, "profiler.Start(") {
		t.Fatalf("README.md: the first go block ends on line %d (want within %d) or calls no profiler.Start:\n%s", end+1, snippetWithin, src)
	}
	steps, next := block(lines, "```sh", end)
	if next < 0 || !strings.Contains(steps, "go mod edit -replace") {
		t.Fatalf("README.md: no sh block after the first go block says how to build it:\n%s", steps)
	}

	dir := t.TempDir()
	app, bin := filepath.Join(dir, "app"), filepath.Join(dir, "bin")
	if err := os.Symlink(root, filepath.Join(dir, "profiler")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOBIN="+bin,
		"PATH="+bin+string(os.PathListSeparator)+filepath.Dir(goTool)+string(os.PathListSeparator)+"/usr/bin:/bin")
	sh := func(dir, line string) string {
		t.Helper()
		c := exec.Command("sh", "-c", line)
		c.Dir, c.Env = dir, env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		return string(out)
	}
	sh(root, "go install ./cmd/tachyon")
	sh(app, "go mod init example.com/app")
	var out string
	for _, line := range strings.Split(steps, "\n") {
		if line, _, _ = strings.Cut(line, "#"); strings.TrimSpace(line) != "" {
			out = sh(app, line)
		}
	}
	if !strings.Contains(out, "samples:") {
		t.Errorf("the sh block's last line printed no profile facts:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(app, "report.html")); err != nil {
		t.Errorf("the sh block wrote no report: %v", err)
	}
}

// block returns the text of the first fenced block opened by fence at or
// after line from, and the index of its closing line (-1 if none).
func block(lines []string, fence string, from int) (string, int) {
	start := -1
	for i := from; i < len(lines); i++ {
		switch {
		case start < 0 && strings.TrimSpace(lines[i]) == fence:
			start = i + 1
		case start >= 0 && strings.TrimSpace(lines[i]) == "```":
			return strings.Join(lines[start:i], "\n") + "\n", i
		}
	}
	return "", -1
}

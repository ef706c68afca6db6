package readme_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestNoBinaryTracked checks that the repository tracks no binary outside
// a testdata directory (a stale build output was once committed): a file
// is binary if its first 8 KiB hold a NUL byte, as git itself decides.
func TestNoBinaryTracked(t *testing.T) {
	root := testutil.RepoRoot()
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("required in CI: git")
		}
		t.Skip("no git")
	}
	cmd := exec.Command(git, "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git ls-files: %v", err)
		}
		t.Skipf("not a git checkout: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "" || strings.HasPrefix(name, "testdata/") || strings.Contains(name, "/testdata/") {
			continue
		}
		f, err := os.Open(filepath.Join(root, name))
		if err != nil {
			continue // deleted in the work tree
		}
		head := make([]byte, 8000)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if bytes.IndexByte(head[:n], 0) >= 0 {
			t.Errorf("%s is a binary file outside testdata", name)
		}
	}
}

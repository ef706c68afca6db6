package testutil

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// childEnv names, in a child process InChild started, the test it runs.
const childEnv = "TESTUTIL_CHILD"

// InChild runs the top-level test t alone in a child process of the test
// binary and reports its outcome as t's, killing the child after limit.
// It returns true in the child, where the caller goes on with the test's
// body, and false in the parent, which returns at once. A test runs so
// when what it judges is the whole process (its allocations, a tracer
// that may hang): no other test's goroutines share the child, and a child
// that hangs is killed. The child's temporary files go into the parent's
// t.TempDir, removed even if the child was killed.
func InChild(t *testing.T, limit time.Duration) bool {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name(), "TMPDIR="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	if err == nil && strings.Contains(out.String(), "--- SKIP") {
		// What the child lacks, it says; under CI it fails instead.
		t.Skipf("child skipped:\n%s", out.String())
	}
	if err != nil || !strings.Contains(out.String(), "--- PASS") {
		t.Fatalf("child (killed after %v if still running): %v\n%s", limit, err, out.String())
	}
	t.Logf("child:\n%s", out.String())
	return false
}

//go:build unix

package quietpipe

import (
	"errors"
	"log"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// childEnv makes the test binary write a log line to its standard error
// and exit 0: through Print ("quiet") or log.Print ("plain").
const childEnv = "QUIETPIPE_CHILD"

func init() {
	switch os.Getenv(childEnv) {
	case "quiet":
		Print("profiler: a line")
		Printf("profiler: %s", "another")
		Stderr.Write([]byte("and a third\n"))
		os.Exit(0)
	case "plain":
		log.Print("a line")
		os.Exit(0)
	}
}

// closedStderr runs the test binary as the child mode, its standard error
// a pipe whose reader has gone, and returns how it ended.
func closedStderr(t *testing.T, mode string) error {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	cmd.Stderr = w
	return cmd.Run()
}

// TestClosedStderr: a log line to a standard error whose reader has gone
// ends the program by SIGPIPE through the log package, and not through
// Print, Printf or Stderr.
func TestClosedStderr(t *testing.T) {
	var ee *exec.ExitError
	if err := closedStderr(t, "plain"); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGPIPE {
		t.Fatalf("the control, log.Print: %v, want death by SIGPIPE", err)
	}
	if err := closedStderr(t, "quiet"); err != nil {
		t.Errorf("through quietpipe: %v, want exit 0", err)
	}
}

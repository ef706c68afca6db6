package auto

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"testing"
)

// startChild runs this test binary's test named test as a child process
// with env added to the environment, waits until it prints "ready" and
// returns it with a reader of the rest of its output.
func startChild(t *testing.T, test string, env ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	return startChildTo(t, nil, test, env...)
}

// startChildTo is startChild with the child's stderr into stderr (read it
// after Wait); nil discards it.
func startChildTo(t *testing.T, stderr io.Writer, test string, env ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	if line, _ := r.ReadString('\n'); line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%s: child said %q", test, line)
	}
	return cmd, r
}

//go:build unix

package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// tempsChildEnv makes the test binary the tachyon command (its arguments
// after "--"), or, set to "hold", a command that holds a temporary file
// until it is killed.
const tempsChildEnv = "TACHYON_TEMPS_CHILD"

func init() {
	switch os.Getenv(tempsChildEnv) {
	case "":
		return
	case "hold":
		watchSignals()
		f, err := os.CreateTemp("", "tachyon-hold-*.tmp")
		if err != nil {
			os.Exit(3)
		}
		addTemp(f.Name())
		os.Stdout.WriteString(f.Name() + "\n")
		select {}
	default:
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append(os.Args[:1], os.Args[i+1:]...)
				break
			}
		}
		main()
	}
}

// tempsChild returns the test binary run as the tachyon command with args,
// or as the holding command (args nil), its temporary files in dir.
func tempsChild(dir string, args ...string) *exec.Cmd {
	mode := "hold"
	if args != nil {
		mode = "cli"
	}
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), tempsChildEnv+"="+mode, "TMPDIR="+dir)
	return cmd
}

// signalOf returns the signal that ended cmd, or -1.
func signalOf(err error) syscall.Signal {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return ws.Signal()
		}
	}
	return -1
}

// left lists what dir holds.
func left(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestClosedStdoutLeavesNoTemp: a command whose standard output closes
// early (`tachyon convert ... -o - | head -c 10`) ends by SIGPIPE, as
// before, and leaves no temporary file behind.
func TestClosedStdoutLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	in := testutil.Vectors(t, "tachyon", "realistic_50k.bin")
	cmd := tempsChild(dir, "convert", "--to", "pprof", "-o", "-", in)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(out, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	out.Close()
	err = cmd.Wait()
	if sig := signalOf(err); sig != syscall.SIGPIPE {
		t.Errorf("ended with %v, want SIGPIPE", err)
	}
	if l := left(t, dir); len(l) != 0 {
		t.Errorf("left in TMPDIR: %v", l)
	}
}

// TestSignalRemovesTemps: SIGTERM and SIGINT remove the temporary files,
// and the signal still ends the process.
func TestSignalRemovesTemps(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := tempsChild(dir)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSuffix(line, "\n")
			if _, err := os.Stat(name); err != nil || filepath.Dir(name) != dir {
				t.Fatalf("the temporary file %q: %v", name, err)
			}
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("still running a minute after %v", sig)
			}
			if got := signalOf(err); got != sig {
				t.Errorf("ended with %v, want %v", err, sig)
			}
			if l := left(t, dir); len(l) != 0 {
				t.Errorf("left in TMPDIR: %v", l)
			}
		})
	}
}

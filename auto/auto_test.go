package auto

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/proftest"
)

// TestHelperProcess is the child: it runs when the test binary is started
// by the tests below with AUTO_HELPER set (PROFILE_OUT is then set too, so
// init started profiling).
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("AUTO_HELPER")
	if mode == "" {
		t.Skip("helper process only")
	}
	if Profile() == nil {
		os.Stdout.WriteString("not profiling\n")
		os.Exit(3)
	}
	os.Stdout.WriteString("ready\n")
	end := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(end) {
	}
	if mode == "exit" {
		if err := Stop(); err != nil {
			os.Exit(4)
		}
		os.Exit(0)
	}
	time.Sleep(time.Minute) // wait for the parent's signal
	os.Exit(5)
}

func runHelper(t *testing.T, mode string, sig os.Signal) (string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "auto.bin")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "AUTO_HELPER="+mode, profiler.EnvOut+"="+out, profiler.EnvMode+"=wall")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q", line)
	}
	if sig != nil {
		time.Sleep(400 * time.Millisecond)
		cmd.Process.Signal(sig)
	}
	return out, cmd.Wait()
}

func TestSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			out, err := runHelper(t, "signal", sig)
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("child: %v, want death by %v", err, sig)
			}
			ws, ok := ee.Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() || ws.Signal() != sig {
				t.Fatalf("child ended with %v, want death by %v", err, sig)
			}
			if n := proftest.Validate(t, out); n == 0 {
				t.Error("no samples")
			}
		})
	}
}

func TestNormalExit(t *testing.T) {
	out, err := runHelper(t, "exit", nil)
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	if n := proftest.Validate(t, out); n == 0 {
		t.Error("no samples")
	}
}

func TestStopWithoutProfile(t *testing.T) {
	if os.Getenv(profiler.EnvOut) != "" {
		t.Skip("PROFILE_OUT set")
	}
	if Profile() != nil || Stop() != nil {
		t.Error("a profile without PROFILE_OUT")
	}
}

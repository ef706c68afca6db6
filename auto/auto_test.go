package auto

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestHelperProcess is the child: it runs when the test binary is started
// by the tests below with AUTO_HELPER set (PROFILE_OUT is then set too, so
// init started profiling). In a normal run it does nothing and passes: a
// skip would count as a skipped test, which CI forbids.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("AUTO_HELPER")
	if mode == "" {
		return
	}
	if Profile() == nil {
		os.Stdout.WriteString("not profiling\n")
		os.Exit(3)
	}
	os.Stdout.WriteString("ready\n")
	busy, err := time.ParseDuration(os.Getenv("AUTO_BUSY"))
	if err != nil {
		os.Stdout.WriteString("bad AUTO_BUSY\n")
		os.Exit(6)
	}
	end := time.Now().Add(busy)
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

// runHelper starts the child in mode, which keeps a goroutine busy for d
// after profiling started; with sig, the parent sends it sig once the child
// has had d and a little more. It returns the profile's path and how the
// child ended.
func runHelper(t *testing.T, mode string, sig os.Signal, d time.Duration) (string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "auto.bin")
	cmd, _ := startChild(t, "TestHelperProcess", "AUTO_HELPER="+mode, "AUTO_BUSY="+d.String(), profiler.EnvOut+"="+out, profiler.EnvMode+"=wall", EnvSignals+"=on")
	if sig != nil {
		time.Sleep(d + d/3)
		cmd.Process.Signal(sig)
	}
	return out, cmd.Wait()
}

// The tests below check that the child's profile is valid and has samples.
// A run too short for a loaded machine to give it one is retried longer.
// TestSignals runs with PROFILE_SIGNALS=on: the profile is finalized on the
// signal, and the child then dies by it.

func TestSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			testutil.Retry(t, 300*time.Millisecond, 4, func(d time.Duration) error {
				out, err := runHelper(t, "signal", sig, d)
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatalf("child: %v, want death by %v", err, sig)
				}
				ws, ok := ee.Sys().(syscall.WaitStatus)
				if !ok || !ws.Signaled() || ws.Signal() != sig {
					t.Fatalf("child ended with %v, want death by %v", err, sig)
				}
				if n := proftest.Validate(t, out); n == 0 {
					return fmt.Errorf("no samples")
				}
				return nil
			})
		})
	}
}

// TestIgnoredSignalStaysIgnored: a SIGINT the process was started with
// ignored (a background job's; here bash's trap ignores it) stays ignored under
// PROFILE_SIGNALS=on: the program runs on, and so does its profile. (The
// test process cannot ignore it for the child itself: signal.Reset does
// not undo signal.Ignore for the children of a Go process.)
func TestIgnoredSignalStaysIgnored(t *testing.T) {
	bash := testutil.Tool(t, "bash")
	const busy = 800 * time.Millisecond
	out := filepath.Join(t.TempDir(), "auto.bin")
	cmd := exec.Command(bash, "-c", `trap '' INT; exec "$0" "$@"`, os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "AUTO_HELPER=exit", "AUTO_BUSY="+busy.String(), profiler.EnvOut+"="+out, profiler.EnvMode+"=wall", EnvSignals+"=on")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q", line)
	}
	time.Sleep(busy / 4)
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v, want exit 0", err)
	}
	proftest.Validate(t, out)
	var first, last uint64
	for _, s := range proftest.Samples(t, proftest.Open(t, out)) {
		if first == 0 || s.TimestampUS < first {
			first = s.TimestampUS
		}
		last = max(last, s.TimestampUS)
	}
	if span := time.Duration(last-first) * time.Microsecond; span < busy/2 {
		t.Errorf("the profile spans %v of the child's %v: it stopped at the ignored SIGINT", span, busy)
	}
}

func TestNormalExit(t *testing.T) {
	testutil.Retry(t, 300*time.Millisecond, 4, func(d time.Duration) error {
		out, err := runHelper(t, "exit", nil, d)
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		if n := proftest.Validate(t, out); n == 0 {
			return fmt.Errorf("no samples")
		}
		return nil
	})
}

func TestStopWithoutProfile(t *testing.T) {
	if os.Getenv(profiler.EnvOut) != "" {
		t.Skip("PROFILE_OUT set")
	}
	if Profile() != nil || Stop() != nil {
		t.Error("a profile without PROFILE_OUT")
	}
}

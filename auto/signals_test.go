package auto

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/proftest"
)

// TestAppProcess is a child app when AUTO_APP is set: "brief" runs 200
// ms, calls Stop and exits 0, writing nothing to its standard error; "plain" has no
// signal handling; "graceful" shuts down on SIGINT/SIGTERM through
// signal.NotifyContext, stops listening at once (so that a second signal
// would kill it, as many servers do), works 300 ms, says so and exits 3.
// In a normal run it does nothing and passes.
func TestAppProcess(t *testing.T) {
	app := os.Getenv("AUTO_APP")
	if app == "" {
		return
	}
	ctx, stop := context.Background(), func() {}
	if app == "graceful" {
		ctx, stop = signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	}
	fmt.Println("ready")
	if app == "brief" {
		time.Sleep(200 * time.Millisecond)
		Stop()
		os.Exit(0)
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		os.Exit(5)
	}
	stop()
	end := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(end) {
	}
	fmt.Println("shutdown complete")
	Stop()
	os.Exit(3)
}

// appRun is how a child app ended.
type appRun struct {
	stdout string
	status string // "exit N" or "signal S"
}

// runApp runs the child app, with a profile into out unless out is "",
// sends it sig once it is ready and has run for wait, and returns how it
// ended. A child still alive 30 s after the signal (once seen: "exit 5",
// its minute out) is sent SIGQUIT, and its status carries the goroutine
// dump that makes, for the failure to say where it was.
func runApp(t *testing.T, app, out string, sig syscall.Signal, wait time.Duration) appRun {
	t.Helper()
	var stderr bytes.Buffer
	cmd, r := startChildTo(t, &stderr, "TestAppProcess", "AUTO_APP="+app, profiler.EnvOut+"="+out)
	time.Sleep(wait)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Errorf("sending %v to the child: %v", sig, err)
	}
	quit := time.AfterFunc(30*time.Second, func() { cmd.Process.Signal(syscall.SIGQUIT) })
	rest, _ := io.ReadAll(r)
	run := appRun{stdout: string(rest), status: exitStatus(cmd.Wait())}
	if !quit.Stop() {
		run.status += fmt.Sprintf(" (alive 30 s after %v; its stderr on SIGQUIT:\n%s)", sig, stderr.Bytes())
	}
	return run
}

// TestSignalsLikeWithout checks that a plain app and one with its own
// graceful shutdown end on SIGTERM and SIGINT exactly as without the
// profiler (exit status and output), and that both leave a finished
// profile: the plain one dies by the signal, leaving its checkpoints; the
// graceful one completes its shutdown, is not sent the signal a second
// time, and its Stop writes the file.
func TestSignalsLikeWithout(t *testing.T) {
	t.Parallel()
	apps := []string{"plain", "graceful"}
	sigs := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT}
	name := func(i int) string { return apps[i/2] + "/" + sigs[i%2].String() }
	parallel(t, 4, 4, name, func(t *testing.T, i int) {
		app, sig := apps[i/2], sigs[i%2]
		// The plain app runs past its first checkpoint.
		wait := 500 * time.Millisecond
		if app == "plain" {
			wait = 3 * time.Second
		}
		want := runApp(t, app, "", sig, wait)
		out := filepath.Join(t.TempDir(), "app.bin")
		got := runApp(t, app, out, sig, wait)
		if got != want {
			t.Errorf("with the profiler: %s, output %q; without: %s, output %q", got.status, got.stdout, want.status, want.stdout)
		}
		if app == "graceful" && (want.status != "exit 3" || !strings.Contains(want.stdout, "shutdown complete")) {
			t.Errorf("the graceful app without the profiler: %+v", want)
		}
		if app == "plain" && want.status != "signal "+sig.String() {
			t.Errorf("the plain app without the profiler: %+v", want)
		}
		if app == "plain" {
			if left := proftest.ValidateLeft(t, profiler.PartDir(out)); left.Samples == 0 {
				t.Errorf("the plain app left no finished checkpoint: %+v", left)
			}
		} else if n := proftest.Validate(t, out); n == 0 {
			t.Error("no samples in the profile")
		}
	})
}

// TestClosedStderrLikeWithout: the profiler's log lines (at start, and
// "wrote" at Stop) to a standard error whose reader has gone do not end
// with SIGPIPE a program that writes nothing there itself.
func TestClosedStderrLikeWithout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	out := filepath.Join(t.TempDir(), "p.bin")
	cmd, rest := startChildTo(t, w, "TestAppProcess", "AUTO_APP=brief", profiler.EnvOut+"="+out)
	io.ReadAll(rest)
	if st := exitStatus(cmd.Wait()); st != "exit 0" {
		t.Fatalf("the program ended with %s, want exit 0", st)
	}
	proftest.Validate(t, out)
}

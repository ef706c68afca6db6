//go:build unix

package profiler_test

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestRecentSignalChild is the child of TestRecentSignal when
// RECENT_SIGNAL_CHILD is set ("ignore": the program ignores SIGUSR1):
// it profiles as the environment says, says "ready", stops the profile
// when told "stop" on its standard input and prints its capture counts,
// then exits when told "exit". In a normal run it does nothing.
func TestRecentSignalChild(t *testing.T) {
	mode := os.Getenv("RECENT_SIGNAL_CHILD")
	if mode == "" {
		return
	}
	if mode == "ignore" {
		signal.Ignore(syscall.SIGUSR1)
	}
	opts, ok, err := profiler.EnvOptions()
	if !ok || err != nil {
		fmt.Println("env:", ok, err)
		os.Exit(2)
	}
	p := profiler.Start(append(opts, profiler.WithQuiet(true))...)
	if p.Err() != nil {
		os.Exit(2)
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() && in.Text() != "stop" {
	}
	p.Stop()
	st := p.CaptureStats()
	fmt.Printf("taken %d limited %d failed %d\n", st.Taken, st.Limited, st.Failed)
	for in.Scan() && in.Text() != "exit" {
	}
	os.Exit(0)
}

// signalChild is a running child of TestRecentSignalChild.
type signalChild struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startSignalChild(t *testing.T, mode string, env ...string) *signalChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecentSignalChild$")
	cmd.Env = append(os.Environ(), append(env, "RECENT_SIGNAL_CHILD="+mode)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if stderr.Len() > 0 {
			t.Logf("the %s child's log:\n%s", mode, stderr.String())
		}
	})
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &signalChild{cmd, in, bufio.NewReader(out)}
	if line, _ := c.out.ReadString('\n'); line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child said %q", line)
	}
	return c
}

// line sends s and returns the child's next line.
func (c *signalChild) line(s string) string {
	fmt.Fprintln(c.in, s)
	l, _ := c.out.ReadString('\n')
	return strings.TrimSpace(l)
}

// wait returns how the child ended: "exit N" or "signal S". A child
// still alive after 10 s has its standard input closed, which ends it.
func (c *signalChild) wait() string {
	t := time.AfterFunc(10*time.Second, func() { c.in.Close() })
	defer t.Stop()
	err := c.cmd.Wait()
	if ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	if err != nil {
		return err.Error()
	}
	return "exit 0"
}

// TestRecentSignal checks PROFILE_RECENT_SIGNAL=USR1 in a child: the
// signal takes one capture into PROFILE_CAPTURE_DIR (a second one within
// the period is counted), and after Stop the signal has Go's default
// effect again (none); a program that ignores the signal keeps ignoring
// it and no capture is taken; and without the variable, the signal is
// left alone.
func TestRecentSignal(t *testing.T) {
	dir := t.TempDir()
	env := []string{"PROFILE_OUT=", "PROFILE_RECENT=15s", "PROFILE_RECENT_SIGNAL=USR1", "PROFILE_CAPTURE_DIR=" + dir}

	c := startSignalChild(t, "on", env...)
	time.Sleep(time.Second)
	for range 2 {
		if err := c.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var files []string
	for end := time.Now().Add(30 * time.Second); len(files) == 0 && time.Now().Before(end); {
		time.Sleep(200 * time.Millisecond)
		files, _ = filepath.Glob(filepath.Join(dir, "capture-*-signal-*.tachyon"))
	}
	if len(files) != 1 {
		t.Errorf("captures %q, want one", files)
	}
	if got := c.line("stop"); got != "taken 1 limited 1 failed 0" {
		t.Errorf("the child's captures: %q", got)
	}
	c.cmd.Process.Signal(syscall.SIGUSR1) // no longer the profile's: Go's default, nothing
	time.Sleep(300 * time.Millisecond)
	fmt.Fprintln(c.in, "exit")
	if got := c.wait(); got != "exit 0" {
		t.Errorf("after Stop, SIGUSR1 ended the child with %q, want Go's default (nothing)", got)
	}
	if after, _ := filepath.Glob(filepath.Join(dir, "capture-*")); len(after) != len(files) {
		t.Errorf("after Stop: %q", after)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, samples := samplesOf(t, data); len(samples) == 0 {
			t.Errorf("%s: no samples", f)
		}
	}

	ign := t.TempDir()
	c = startSignalChild(t, "ignore", "PROFILE_OUT=", "PROFILE_RECENT=15s", "PROFILE_RECENT_SIGNAL=USR1", "PROFILE_CAPTURE_DIR="+ign)
	c.cmd.Process.Signal(syscall.SIGUSR1)
	time.Sleep(300 * time.Millisecond)
	if got := c.line("stop"); got != "taken 0 limited 0 failed 0" {
		t.Errorf("a program ignoring SIGUSR1: captures %q", got)
	}
	fmt.Fprintln(c.in, "exit")
	c.in.Close()
	if got := c.wait(); got != "exit 0" {
		t.Errorf("a program ignoring SIGUSR1 ended with %q", got)
	}

	c = startSignalChild(t, "on", "PROFILE_OUT=", "PROFILE_RECENT=15s", "PROFILE_CAPTURE_DIR="+ign)
	c.cmd.Process.Signal(syscall.SIGUSR1)
	time.Sleep(300 * time.Millisecond)
	if got := c.line("stop"); got != "taken 0 limited 0 failed 0" {
		t.Errorf("without PROFILE_RECENT_SIGNAL: captures %q", got)
	}
	fmt.Fprintln(c.in, "exit")
	if got := c.wait(); got != "exit 0" {
		t.Errorf("without PROFILE_RECENT_SIGNAL, SIGUSR1 ended the child with %q, want Go's default (nothing)", got)
	}
}

// TestRecentSignalWithoutWindow: WithRecentSignal on a profile that keeps
// no recent window takes no capture, and the log says so at Start rather
// than leave an operator's signal unanswered without a word.
func TestRecentSignalWithoutWindow(t *testing.T) {
	var logs testutil.Buffer
	p := profiler.Start(profiler.WithPath(filepath.Join(t.TempDir(), "p.bin")), profiler.WithRecentSignal(syscall.SIGUSR1),
		profiler.WithLogger(log.New(&logs, "", 0)), profiler.WithQuiet(true))
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "WithRecentSignal has no effect without a recent window") {
		t.Errorf("log %q: want WithRecentSignal's lack of a window said", logs.String())
	}
}

// TestRecentSignalWithoutWindowByEnv: PROFILE_RECENT_SIGNAL without a
// recent window is said once, by EnvOptions's check of the environment
// (which names the variable), not again by Start.
func TestRecentSignalWithoutWindowByEnv(t *testing.T) {
	t.Setenv("PROFILE_OUT", filepath.Join(t.TempDir(), "p.bin"))
	t.Setenv("PROFILE_RECENT_SIGNAL", "USR1")
	opts, ok, err := profiler.EnvOptions()
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	var logs testutil.Buffer
	p := profiler.Start(append(opts, profiler.WithLogger(log.New(&logs, "", 0)), profiler.WithQuiet(true))...)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "no effect without a recent window") {
		t.Errorf("log %q: Start said again what the environment's check says", logs.String())
	}
}

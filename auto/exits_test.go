package auto

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/segment"
)

// TestExitProcess is a child program when AUTO_EXIT is set. In a normal run
// it does nothing and passes.
//
//   - "ticker": a SIGTERM handler in a select with a 10 ms ticker whose
//     case works 8 ms; it counts the signals it receives in the 300 ms
//     after the first and exits 0 for one, 1 for more.
//   - "server": an HTTP server on 127.0.0.1 that shuts down on SIGTERM
//     through signal.NotifyContext and srv.Shutdown, then ends the process
//     without calling Stop, as a main that returns does.
//   - "exit", "fatal", "panic", "kill": work (a goroutine busy part of
//     the time, parked ones) for AUTO_FOR, then os.Exit(2), log.Fatal, an unrecovered panic
//     in a goroutine, or nothing (the parent kills it).
func TestExitProcess(t *testing.T) {
	mode := os.Getenv("AUTO_EXIT")
	if mode == "" {
		return
	}
	switch mode {
	case "ticker":
		tickerApp()
	case "server":
		serverApp()
	default:
		workThenExit(mode)
	}
}

func tickerApp() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGTERM)
	tick := time.NewTicker(10 * time.Millisecond)
	fmt.Println("ready")
	got := 0
	var done <-chan time.Time
	for {
		select {
		case <-sig:
			got++
			if got == 1 {
				done = time.After(300 * time.Millisecond)
			}
		case <-tick.C:
			for end := time.Now().Add(8 * time.Millisecond); time.Now().Before(end); {
			}
		case <-done:
			fmt.Printf("signals %d\n", got)
			if got != 1 {
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
}

func serverApp() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(7)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for end := time.Now().Add(time.Millisecond); time.Now().Before(end); {
		}
		io.WriteString(w, "ok")
	})}
	go srv.Serve(ln)
	fmt.Println("ready")
	fmt.Println(ln.Addr())
	<-ctx.Done()
	srv.Shutdown(context.Background())
	fmt.Println("shutdown complete")
	os.Exit(0) // main returns: no Stop
}

func workThenExit(mode string) {
	d, err := time.ParseDuration(os.Getenv("AUTO_FOR"))
	if err != nil {
		os.Exit(6)
	}
	for range 100 {
		go func() { select {} }()
	}
	go func() { // busy a fifth of the time: on CPU in the profile, and not a core of CI's
		for x := 0; ; x++ {
			if x < 0 {
				os.Exit(4)
			}
			if x%(1<<20) == 0 {
				time.Sleep(4 * time.Millisecond)
			}
		}
	}()
	fmt.Println("ready")
	time.Sleep(d)
	switch mode {
	case "exit":
		os.Exit(2)
	case "fatal":
		log.Fatal("fatal, as the program meant")
	case "panic":
		go panic("a goroutine's panic")
	}
	time.Sleep(time.Hour) // "kill": the parent kills it
}

// exitStatus says how a child ended: "exit N" or "signal S".
func exitStatus(err error) string {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return err.Error()
		}
		return "exit 0"
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exit %d", ee.ExitCode())
}

// parallel runs fn(t, i) as subtests named name(i) for i in [0, n), at
// most width at a time (more than -test.parallel allows, since the
// children mostly wait), and waits for them.
func parallel(t *testing.T, n, width int, name func(i int) string, fn func(t *testing.T, i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, width)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			t.Run(name(i), func(t *testing.T) { fn(t, i) })
		}()
	}
	wg.Wait()
}

// runName names the i-th run.
func runName(i int) string { return fmt.Sprintf("run%d", i) }

// TestTickerSelectOneSignal checks, 20 times, that a program whose SIGTERM
// handler is not always parked on its channel gets the signal exactly
// once while it is profiled (issue 25 item 4).
func TestTickerSelectOneSignal(t *testing.T) {
	dir := t.TempDir()
	parallel(t, 20, 4, runName, func(t *testing.T, i int) {
		out := filepath.Join(dir, fmt.Sprintf("ticker%d.bin", i))
		cmd, r := startChild(t, "TestExitProcess", "AUTO_EXIT=ticker", profiler.EnvOut+"="+out)
		time.Sleep(200 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		rest, _ := io.ReadAll(r)
		if st := exitStatus(cmd.Wait()); st != "exit 0" || !strings.Contains(string(rest), "signals 1") {
			t.Errorf("%s, output %q; want one signal and exit 0", st, rest)
		}
	})
}

// TestGracefulServerLeavesProfile checks, 20 times each with a single file
// and with PROFILE_SEGMENT=5s, that a server whose graceful shutdown
// (signal.NotifyContext, srv.Shutdown) ends the process without Stop
// leaves a finished profile of the time it served (issue 25 item 7).
func TestGracefulServerLeavesProfile(t *testing.T) {
	t.Parallel()
	segs := []string{"", "5s"}
	dir := t.TempDir()
	name := func(i int) string { return fmt.Sprintf("segment=%s/%s", segs[i%2], runName(i/2)) }
	parallel(t, 40, 10, name, func(t *testing.T, i int) {
		seg := segs[i%2]
		out := filepath.Join(dir, fmt.Sprintf("server%d.bin", i))
		cmd, r := startChild(t, "TestExitProcess", "AUTO_EXIT=server", profiler.EnvOut+"="+out, profiler.EnvSegment+"="+seg)
		addr, _ := r.ReadString('\n')
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
			if resp, err := http.Get("http://" + strings.TrimSpace(addr) + "/"); err == nil {
				resp.Body.Close()
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		rest, _ := io.ReadAll(r)
		if st := exitStatus(cmd.Wait()); st != "exit 0" || !strings.Contains(string(rest), "shutdown complete") {
			t.Errorf("%s, output %q", st, rest)
			return
		}
		left := finished(t, out, seg != "")
		if left.Samples == 0 {
			t.Errorf("no finished profile: %+v", left)
		}
	})
}

// finished validates what a run that did not stop left at out: its
// checkpoints, or with segments its finished segments.
func finished(t *testing.T, out string, segments bool) proftest.Left {
	if !segments {
		return proftest.ValidateLeft(t, profiler.PartDir(out))
	}
	done, _ := filepath.Glob(filepath.Join(out, "*"+segment.Ext))
	var left proftest.Left
	for _, p := range done {
		left.Files++
		left.Samples += proftest.Validate(t, p)
	}
	return left
}

// TestAbruptExitsKeepCheckpoints checks that os.Exit, log.Fatal, a
// goroutine's panic and SIGKILL after 30 s each leave at least the first
// 20 s of the profile finished and readable (issue 25 item 8).
func TestAbruptExitsKeepCheckpoints(t *testing.T) {
	t.Parallel()
	const run, keep = 30 * time.Second, 20 * time.Second
	modes := []string{"exit", "fatal", "panic", "kill"}
	want := map[string]string{"exit": "exit 2", "fatal": "exit 1", "panic": "exit 2", "kill": "signal killed"}
	dir := t.TempDir()
	parallel(t, len(modes), len(modes), func(i int) string { return modes[i] }, func(t *testing.T, i int) {
		mode := modes[i]
		out := filepath.Join(dir, mode+".bin")
		cmd, _ := startChild(t, "TestExitProcess", "AUTO_EXIT="+mode, "AUTO_FOR="+run.String(), profiler.EnvOut+"="+out)
		if mode == "kill" {
			time.Sleep(run)
			cmd.Process.Kill()
		}
		if st := exitStatus(cmd.Wait()); st != want[mode] {
			t.Errorf("the child ended with %s, want %s", st, want[mode])
		}
		left := proftest.ValidateLeft(t, profiler.PartDir(out))
		t.Logf("%d finished checkpoints, %d samples, %v of the profile", left.Files, left.Samples, left.Span.Round(time.Millisecond))
		if left.Span < keep {
			t.Errorf("%v of the profile is readable, want at least %v", left.Span, keep)
		}
	})
}

package sampler

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

// rawRead blocks in a read(2) made with syscall.Syscall until fd has data
// or is closed.
//
//go:noinline
func rawRead(fd uintptr) {
	var b [1]byte
	syscall.Syscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), 1)
}

// TestOneTailPerSyscall checks that a goroutine blocked in one system call
// has one stack for it: the trace's event where the call begins leaves out
// the frame that entered it (syscall.Syscall), which the trace's
// generation-start stacks and runtime.Stack show, so without normalising
// it the goroutine's stack changed at the first generation after the
// call began, and the backends disagreed.
func TestOneTailPerSyscall(t *testing.T) {
	testutil.Retry(t, 1500*time.Millisecond, 2, func(d time.Duration) error {
		tails := map[Backend]string{}
		for _, b := range []Backend{Trace, Snapshot} {
			got, err := syscallTails(t, b, d)
			if err != nil {
				return err
			}
			if len(got) != 1 {
				t.Errorf("%v: a goroutine in one read(2) had %d stacks, want 1:\n%s", b, len(got), fmt.Sprint(got))
			}
			for s := range got {
				tails[b] = s
			}
		}
		if tails[Trace] != tails[Snapshot] {
			t.Errorf("the backends differ:\ntrace    %s\nsnapshot %s", tails[Trace], tails[Snapshot])
		}
		return nil
	})
}

// syscallTails samples, with backend b for d, a goroutine that enters a
// blocking read(2) after Start, and returns its distinct code stacks in a
// system call, as text.
func syscallTails(t *testing.T, b Backend, d time.Duration) (map[string]bool, error) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fd := r.Fd() // blocking
	sink := newMemSink()
	s, err := Start(Config{Backend: b}, sink)
	if err != nil {
		return nil, err
	}
	id := make(chan uint64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		id <- goid.Current()
		rawRead(fd)
	}()
	gid := <-id
	time.Sleep(d)
	_, err = s.Stop()
	w.Close()
	<-done
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, smp := range sink.of(gid) {
		if smp.status.State() != tachyon.Syscall {
			continue
		}
		out[fmt.Sprint(smp.stack[:tachyon.SplitLabels(len(smp.stack), func(i int) bool { return tachyon.IsLabel(smp.stack[i]) })])] = true
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%v: no sample in a system call", b)
	}
	return out, nil
}

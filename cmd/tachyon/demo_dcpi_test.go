package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/elfsym"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestDemoDCPI runs "tachyon demo -mode cpu -dcpi" as a real binary, checks
// the DCPI file with the independent validator, and checks that most of the
// hottest addresses are instructions of the demo's CPU-bound goroutine:
// its loops (demo.hotA, demo.hotB) and the thread clock it reads every 500
// steps, a system call that costs more than the steps between two reads on
// a VM (runtime/pprof puts about two thirds of the goroutine there).
// That share is statistical: a run a loaded machine left with no samples,
// or with too few to show it, is retried with a longer demo.
func TestDemoDCPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the CLI")
	}
	ref := testutil.Shared(t, "tools", "dcpi_ref.py")
	py := testutil.Tool(t, "python3")
	dir := t.TempDir()
	bin := filepath.Join(dir, "tachyon")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	tab, err := elfsym.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Retry(t, 2*time.Second, 3, func(d time.Duration) error {
		run := t.TempDir()
		prof, dcpiOut := filepath.Join(run, "p.bin"), filepath.Join(run, "p.dcpi")
		if out, err := exec.Command(bin, "demo", "-mode", "cpu", "-duration", d.String(), "-o", prof, "-dcpi", dcpiOut).CombinedOutput(); err != nil {
			t.Fatalf("demo: %v\n%s", err, out)
		}
		if out, err := exec.Command(py, ref, "validate", dcpiOut).CombinedOutput(); err != nil {
			t.Fatalf("dcpi_ref.py validate: %v\n%s", err, out)
		}
		dump, err := exec.Command(py, ref, "dump", dcpiOut).Output()
		if err != nil {
			t.Fatal(err)
		}
		var total, hot, loops uint64
		sc := bufio.NewScanner(bytes.NewReader(dump))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 2 || !strings.HasPrefix(f[0], "0x") {
				continue
			}
			addr, err1 := strconv.ParseUint(f[0][2:], 16, 64)
			n, err2 := strconv.ParseUint(f[1], 10, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			total += n
			fn := tab.PCToFunc(addr)
			if fn == nil {
				continue
			}
			if strings.HasSuffix(fn.Name, "demo.hotA") || strings.HasSuffix(fn.Name, "demo.hotB") {
				loops += n
			}
			if spinnerCode(fn.Name) {
				hot += n
			}
		}
		if total == 0 {
			return fmt.Errorf("no samples in the DCPI file of a %v demo:\n%s", d, dump)
		}
		t.Logf("%v demo: %d of %d samples on the spinner's instructions, %d on demo.hotA/hotB's", d, hot, total, loops)
		if hot*2 < total || loops*5 < total {
			return fmt.Errorf("only %d of %d samples point into the spinner's code, %d into demo.hotA/hotB", hot, total, loops)
		}
		return nil
	})
}

// spinnerCode reports whether fn is code the demo's CPU-bound goroutine
// runs: its loops and the thread clock's path into the kernel.
func spinnerCode(fn string) bool {
	for _, s := range []string{"demo.hotA", "demo.hotB", "cputime.Thread", "syscall.RawSyscall", "syscall.RawSyscall6", "linux.Syscall6", "unix.(*Timespec).Nano"} {
		if strings.HasSuffix(fn, s) {
			return true
		}
	}
	return false
}

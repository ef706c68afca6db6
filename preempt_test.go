package profiler

import (
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

func TestAsyncPreemptOff(t *testing.T) {
	for godebug, want := range map[string]bool{
		"":                                    false,
		"asyncpreemptoff=1":                   true,
		"gctrace=1,asyncpreemptoff=1":         true,
		"asyncpreemptoff=1,asyncpreemptoff=0": false,
		"asyncpreemptoff=0,asyncpreemptoff=2": true,
		"asyncpreemptoff=0":                   false,
		"asyncpreemptoff=":                    false,
		"xasyncpreemptoff=1":                  false,
	} {
		if got := asyncPreemptOff(godebug); got != want {
			t.Errorf("asyncPreemptOff(%q) = %v, want %v", godebug, got, want)
		}
	}
}

// TestStartWarnsAsyncPreemptOff checks that a program run with
// GODEBUG=asyncpreemptoff=1, whose loops without function calls the
// trace's generations wait for, stalling the program, is told so at
// Start, even when quiet, and that one run without it is not. (The
// runtime reads asyncpreemptoff at its start only: setting GODEBUG here
// does not turn preemption off.)
func TestStartWarnsAsyncPreemptOff(t *testing.T) {
	for _, off := range []bool{true, false} {
		godebug := os.Getenv("GODEBUG") + ",asyncpreemptoff=0"
		if off {
			godebug = os.Getenv("GODEBUG") + ",asyncpreemptoff=1"
		}
		t.Setenv("GODEBUG", godebug)
		var logged testutil.Buffer
		p := Start(WithPath(filepath.Join(t.TempDir(), "p.bin")), WithQuiet(true), WithLogger(log.New(&logged, "", 0)))
		if err := p.Stop(); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(logged.String(), "asyncpreemptoff"); got != off {
			t.Errorf("GODEBUG=%q: warned %v, want %v; log:\n%s", godebug, got, off, logged.String())
		}
	}
}

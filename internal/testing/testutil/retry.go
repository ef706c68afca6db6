package testutil

import (
	"testing"
	"time"
)

// Retry runs check, a statistical check over a run of length d, and while
// it fails runs it again with d doubled, as runtime/pprof's tests do: a
// loaded machine may give a short run too few samples to judge. It gives up
// after tries runs, or when the test's deadline leaves no room for the next
// one, and fails t with the last error.
func Retry(t *testing.T, d time.Duration, tries int, check func(d time.Duration) error) {
	t.Helper()
	deadline, hasDeadline := t.Deadline()
	var err error
	for try := 0; try < tries; try, d = try+1, d*2 {
		if hasDeadline && time.Until(deadline) < 3*d && try > 0 {
			break
		}
		if err = check(d); err == nil {
			return
		}
		t.Logf("%v run: %v; retrying longer", d, err)
	}
	t.Fatal(err)
}

// Again runs check, a check that the machine's load may spoil (a run it
// cannot judge), up to tries times while it fails, and fails t with the
// last error. Unlike Retry, the runs are alike: none is longer.
func Again(t *testing.T, tries int, check func() error) {
	t.Helper()
	var err error
	for try := 1; try <= tries; try++ {
		if err = check(); err == nil {
			return
		}
		if try < tries {
			t.Logf("run %d of %d: %v; running again", try, tries, err)
		}
	}
	t.Fatal(err)
}

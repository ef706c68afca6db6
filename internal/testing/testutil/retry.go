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

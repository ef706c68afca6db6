package writer

import (
	"bytes"
	"errors"
	"testing"
)

// TestExpandStopsAtError: once emit fails, expand emits nothing more and
// returns that error, including when the same unit's tail fills a piece
// after its bytes before the mark failed to go.
func TestExpandStopsAtError(t *testing.T) {
	const chunk = 64
	m := marked{
		buf:   bytes.Repeat([]byte{'a'}, 2*chunk),
		marks: []mark{{pos: chunk + chunk/2, t: tail{pair: [tailPairBytes]byte{1, 2}, len: 2, n: chunk}}},
	}
	failed := errors.New("disk full")
	calls := 0
	_, err := m.expand(0, 1, len(m.buf), chunk, nil, func([]byte) error {
		calls++
		if calls == 1 {
			return failed
		}
		return nil
	})
	if !errors.Is(err, failed) || calls != 1 {
		t.Errorf("expand returned %v after %d calls of emit, want %v after 1", err, calls, failed)
	}
}

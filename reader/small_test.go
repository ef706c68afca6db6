package reader_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/reader"
)

// TestSmallFilesSayWhat: a file smaller than a header and a footer is
// E_TOO_SMALL, with what it most likely is in words, whatever opened it,
// down to no bytes at all.
func TestSmallFilesSayWhat(t *testing.T) {
	for _, c := range []struct {
		data []byte
		want string
	}{
		{nil, "file is 0 bytes"},
		{[]byte{}, "file is 0 bytes"},
		{[]byte("ab"), "file is 2 bytes"},
		{[]byte("HCAT\x02\x00"), "cut short"},
		{[]byte("hello, world\n"), `not a Tachyon profile: it starts with "hell"`},
		{make([]byte, 70), "not finalized"},
	} {
		for _, open := range []func([]byte) (*reader.File, error){
			reader.NewFileBytes,
			func(b []byte) (*reader.File, error) { return reader.NewFile(bytes.NewReader(b), int64(len(b))) },
		} {
			_, err := open(c.data)
			var fe *reader.FormatError
			if !errors.As(err, &fe) || fe.Code != reader.ETooSmall || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%d bytes %q: %v, want E_TOO_SMALL and %q", len(c.data), c.data, err, c.want)
			}
		}
	}
}

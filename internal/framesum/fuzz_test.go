package framesum_test

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"github.com/gotachyon/profiler/internal/framesum"
)

// FuzzVerifier reads any stream through a Verifier at once and a byte at
// a time: it must never panic, pass every byte through unchanged, and
// find the same fault either way.
func FuzzVerifier(f *testing.F) {
	region, _ := stream(f)
	f.Add(region)
	f.Add(covered(f, content(3)))
	f.Add(framesum.Append(nil, 0))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x00, 0x01, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, err1 := io.ReadAll(framesum.NewVerifier(bytes.NewReader(data)))
		bytewise, err2 := io.ReadAll(framesum.NewVerifier(iotest.OneByteReader(bytes.NewReader(data))))
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("read whole: %v; a byte at a time: %v", err1, err2)
		}
		if err1 == nil && (!bytes.Equal(whole, data) || !bytes.Equal(bytewise, data)) {
			t.Fatal("the bytes read differ from the stream's")
		}
	})
}

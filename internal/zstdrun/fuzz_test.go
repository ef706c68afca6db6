package zstdrun

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/framesum"
)

// FuzzRoundTrip reads units from the input (a literal length and bytes, a
// pattern length and bytes, a count) and checks that the frame they make
// decodes to their content, with klauspost's decoder, and that its
// checksum frame holds, by a framesum.Verifier. TestRoundTrip covers what is larger than a run here: many
// blocks, units longer than one, offsets far back.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{3, 'a', 'b', 'c', 2, 1, 2, 200, 1})
	f.Add(bytes.Repeat([]byte{15, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x90, 3, 3, 0x90, 0x4e, 0, 0x90, 3}, 20))
	f.Add([]byte{0, 1, 7, 0xff, 0xff, 0, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	var first []byte // goroutines' first records: literals alike but in places
	for _, u := range firstUnits(4, 300) {
		first = append(append(first, byte(len(u.lit))), u.lit...)
		first = append(append(first, byte(len(u.pat))), u.pat...)
		first = binary.LittleEndian.AppendUint16(first, uint16(u.n))
	}
	f.Add(first)
	var (
		e              = New()
		frame, content bytes.Buffer
		got            []byte
		reps           []byte
	)
	// repeat returns p repeated n times, in reps.
	repeat := func(p []byte, n int) []byte {
		reps = append(reps[:0], p...)
		for len(reps) < n*len(p) {
			reps = append(reps, reps[:min(len(reps), n*len(p)-len(reps))]...)
		}
		return reps[:n*len(p)]
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		frame.Reset()
		content.Reset()
		e.Reset(&frame)
		// A few kilobytes of content keep each run quick.
		for len(in) > 0 && content.Len() < 16<<10 {
			l := min(int(in[0]), len(in)-1)
			lit := in[1 : 1+l]
			in = in[1+l:]
			var pat []byte
			n := 0
			if len(in) > 0 {
				p := min(int(in[0])%(MaxPattern+1), len(in)-1)
				pat = in[1 : 1+p]
				in = in[1+p:]
			}
			if len(in) >= 2 {
				n = int(binary.LittleEndian.Uint16(in) & 0x3ff)
				in = in[2:]
			}
			e.Add(lit, pat, n)
			content.Write(lit)
			content.Write(repeat(pat, n))
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		var err error
		if got, err = decoder.DecodeAll(frame.Bytes(), got[:0]); err != nil {
			t.Fatalf("decoding %d bytes: %v", frame.Len(), err)
		}
		if !bytes.Equal(got, content.Bytes()) {
			t.Fatalf("decoded %d bytes, want %d (first difference at %d)", len(got), content.Len(), firstDiff(got, content.Bytes()))
		}
		if _, err := io.Copy(io.Discard, framesum.NewVerifier(bytes.NewReader(frame.Bytes()))); err != nil {
			t.Fatalf("checking %d bytes: %v", frame.Len(), err)
		}
	})
}

package zstdrun

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os/exec"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/framesum"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// unit is one Add's arguments.
type unit struct {
	lit, pat []byte
	n        int
}

// encode writes units as one frame and returns it with the content it
// stands for.
func encode(t testing.TB, e *Encoder, units []unit) (frame, content []byte) {
	t.Helper()
	var out bytes.Buffer
	e.Reset(&out)
	for _, u := range units {
		e.Add(u.lit, u.pat, u.n)
		content = append(content, u.lit...)
		for range u.n {
			content = append(content, u.pat...)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), content
}

// decoder is klauspost's decoder; it skips the checksum frames.
var decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))

// decode decompresses frames.
func decode(t testing.TB, frames []byte) []byte {
	t.Helper()
	got, err := decoder.DecodeAll(frames, nil)
	if err != nil {
		t.Fatalf("decoding %d bytes: %v", len(frames), err)
	}
	return got
}

// parkedUnits are n records of parked goroutines' runs: a REPEAT record's
// header (thread id, interpreter, encoding, count) and ticks copies of
// one pair.
func parkedUnits(n, ticks int) []unit {
	pair := []byte{0x90, 0x4e, 0}
	units := make([]unit, n)
	for i := range units {
		lit := binary.LittleEndian.AppendUint64(nil, uint64(1000+i))
		lit = append(lit, 0, 0, 0, 0, 0)
		lit = binary.AppendUvarint(lit, uint64(ticks))
		units[i] = unit{lit: lit, pat: pair, n: ticks}
	}
	return units
}

// firstUnits are n goroutines' first records, each a FULL record (thread
// id, interpreter, encoding, delta, status, one of three stacks) and a
// REPEAT record's header before ticks copies of one pair: records alike
// but for the thread id, which comes twice.
func firstUnits(n, ticks int) []unit {
	pair := []byte{0x90, 0x4e, 0}
	units := make([]unit, n)
	for i := range units {
		id := binary.LittleEndian.AppendUint64(nil, uint64(100_000+i))
		lit := append(id, 0, 0, 0, 0, 1, 0xdc, 0x0a, 0, byte(10+i%3))
		for f := range 10 + i%3 {
			lit = append(lit, byte(f+i%3))
		}
		lit = append(append(lit, id...), 0, 0, 0, 0, 0)
		lit = binary.AppendUvarint(lit, uint64(ticks))
		units[i] = unit{lit: lit, pat: pair, n: ticks}
	}
	return units
}

// randomUnits mixes what the writer hands over: parked records in runs,
// records whose runs differ, long literal stretches, short and empty
// patterns.
func randomUnits(r *rand.Rand, n int) []unit {
	var units []unit
	for len(units) < n {
		switch r.IntN(7) {
		case 0: // a batch of parked records
			units = append(units, parkedUnits(1+r.IntN(200), 1+r.IntN(2000))...)
		case 6: // a batch of goroutines' first records
			units = append(units, firstUnits(1+r.IntN(200), 1+r.IntN(2000))...)
		case 1: // a long literal stretch
			lit := make([]byte, r.IntN(200<<10))
			for i := range lit {
				lit[i] = byte(r.IntN(1 + r.IntN(256)))
			}
			units = append(units, unit{lit: lit})
		default:
			lit := make([]byte, r.IntN(40))
			for i := range lit {
				lit[i] = byte(r.IntN(4))
			}
			pat := make([]byte, 1+r.IntN(MaxPattern))
			for i := range pat {
				pat[i] = byte(r.IntN(256))
			}
			units = append(units, unit{lit: lit, pat: pat, n: r.IntN(6000)})
		}
	}
	return units
}

func TestRoundTrip(t *testing.T) {
	e := New()
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		frame, content := encode(t, e, randomUnits(r, 1+r.IntN(300)))
		if got := decode(t, frame); !bytes.Equal(got, content) {
			t.Fatalf("seed %d: decoded %d bytes, want %d (first difference at %d)", seed, len(got), len(content), firstDiff(got, content))
		}
	}
}

func TestEmptyAndTiny(t *testing.T) {
	e := New()
	for _, units := range [][]unit{
		nil,
		{{lit: []byte("x")}},
		{{pat: []byte{1, 2, 3}, n: 1}},
		{{lit: []byte("ab"), pat: []byte{7}, n: 40}},
		{{pat: []byte{9}, n: MinMatch + 1}},
	} {
		frame, content := encode(t, e, units)
		if got := decode(t, frame); !bytes.Equal(got, content) {
			t.Fatalf("%v: decoded %q, want %q", units, got, content)
		}
	}
}

// TestFramesConcatenate: frames written one after another decode as one
// stream, as a file's compressed records do.
func TestFramesConcatenate(t *testing.T) {
	e := New()
	var all, want []byte
	for i := range 5 {
		frame, content := encode(t, e, parkedUnits(50+i, 100*i))
		all = append(all, frame...)
		want = append(want, content...)
	}
	if got := decode(t, all); !bytes.Equal(got, want) {
		t.Fatalf("decoded %d bytes, want %d", len(got), len(want))
	}
}

// TestChecksum: each frame is followed by its checksum frame, which a
// framesum.Verifier checks: a frame damaged in a byte, or its checksum,
// reads as an error.
func TestChecksum(t *testing.T) {
	frame, content := encode(t, New(), parkedUnits(100, 400))
	read := func(b []byte) ([]byte, error) {
		dec, err := zstd.NewReader(framesum.NewVerifier(bytes.NewReader(b)), zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Close()
		return io.ReadAll(dec)
	}
	if got, err := read(frame); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("read %d bytes of %d, %v", len(got), len(content), err)
	}
	for _, i := range []int{len(frame) - framesum.Size - 1, len(frame) - framesum.Size - 5, len(frame) - 1} {
		bad := bytes.Clone(frame)
		bad[i] ^= 1
		if _, err := read(bad); err == nil {
			t.Fatalf("byte %d of %d damaged: read without an error", i, len(frame))
		}
	}
}

// TestParkedSize: parked goroutines' records cost a few bytes each, no
// more than klauspost's level 5 makes of them (2.47 and 2.66 bytes).
func TestParkedSize(t *testing.T) { checkSize(t, "records", parkedUnits(10000, 400)) }

// TestFirstRecordsSize: goroutines' first records, alike but for their
// thread ids, cost no more than klauspost's level 5 makes of them.
func TestFirstRecordsSize(t *testing.T) { checkSize(t, "first records", firstUnits(10000, 400)) }

// checkSize checks that units of 400 ticks decode to their content and
// take at most a tenth more than klauspost's level 5 makes of it.
func checkSize(t *testing.T, what string, units []unit) {
	t.Helper()
	frame, content := encode(t, New(), units)
	if got := decode(t, frame); !bytes.Equal(got, content) {
		t.Fatalf("decoded %d bytes, want %d (first difference at %d)", len(got), len(content), firstDiff(got, content))
	}
	zw, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(5)), zstd.WithWindowSize(128<<10))
	ref := zw.EncodeAll(content, nil)
	t.Logf("%d %s of 400 ticks (%d bytes): %d bytes (%.2f a record), klauspost level 5 %d bytes",
		len(units), what, len(content), len(frame), float64(len(frame))/float64(len(units)), len(ref))
	if len(frame) > len(ref)*11/10 {
		t.Fatalf("%d bytes, more than a tenth over klauspost's %d", len(frame), len(ref))
	}
}

// TestReferenceDecoder checks frames with the reference zstd tool.
func TestReferenceDecoder(t *testing.T) {
	tool := testutil.Tool(t, "zstd")
	e := New()
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 11))
		frame, content := encode(t, e, randomUnits(r, 1+r.IntN(300)))
		cmd := exec.Command(tool, "-d", "-c", "-q")
		cmd.Stdin = bytes.NewReader(frame)
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("seed %d: zstd -d: %v", seed, err)
		}
		if !bytes.Equal(got, content) {
			t.Fatalf("seed %d: zstd decoded %d bytes, want %d (first difference at %d)", seed, len(got), len(content), firstDiff(got, content))
		}
	}
}

func TestAddAfterClose(t *testing.T) {
	e := New()
	e.Reset(io.Discard)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e.Add([]byte("x"), nil, 0)
	if err := e.Close(); err != ErrClosed {
		t.Fatalf("Close after an Add with no frame begun: %v, want ErrClosed", err)
	}
	var out bytes.Buffer
	e.Reset(&out)
	e.Add([]byte("ab"), []byte{1}, -3)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got := decode(t, out.Bytes()); string(got) != "ab" {
		t.Fatalf("a negative count: decoded %q, want %q", got, "ab")
	}
}

func TestLongPattern(t *testing.T) {
	e := New()
	var out bytes.Buffer
	e.Reset(&out)
	e.Add(nil, make([]byte, MaxPattern+1), 2)
	if err := e.Close(); err != ErrPattern {
		t.Fatalf("Close after a long pattern: %v, want ErrPattern", err)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// blockModes counts the compression modes of the compressed blocks of a
// frame this package wrote (a header of six bytes, no dictionary, no
// content size), by kind: [kind][mode].
func blockModes(t *testing.T, frame []byte) (modes [3][4]int) {
	t.Helper()
	i := 6
	for {
		h := int(frame[i]) | int(frame[i+1])<<8 | int(frame[i+2])<<16
		i += 3
		last, typ, size := h&1 == 1, h>>1&3, h>>3
		if typ == blockCompressed {
			b := frame[i : i+size]
			j := 0
			// The literals section's header, then its bytes.
			switch lt, sf := b[0]&3, b[0]>>2&3; {
			case lt < 2 && sf&1 == 0:
				j = 1 + int(b[0]>>3)
			case lt < 2 && sf == 1:
				j = 2 + (int(b[0]>>4) | int(b[1])<<4)
			case lt < 2:
				j = 3 + (int(b[0]>>4) | int(b[1])<<4 | int(b[2])<<12)
			default:
				t.Fatalf("Huffman literals in a test of modes")
			}
			if b[j] == 0 {
				t.Fatal("a compressed block without sequences")
			}
			switch {
			case b[j] < 128:
				j++
			case b[j] < 0xFF:
				j += 2
			default:
				j += 3
			}
			for kind := range 3 {
				modes[kind][b[j]>>(6-2*kind)&3]++
			}
		}
		i += size
		if last {
			return modes
		}
	}
}

// TestModes: the frames of varied units use every mode for their codes
// somewhere (RLE, predefined, a table of their own, the last block's),
// and decode, by klauspost's decoder and the reference tool alike.
func TestModes(t *testing.T) {
	e := New()
	var all [3][4]int
	var frames, contents []byte
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 3))
		var units []unit
		for _, u := range randomUnits(r, 100) {
			if len(u.lit) <= 1024 { // no Huffman literals: the walk reads raw ones
				units = append(units, u)
			}
		}
		frame, content := encode(t, e, units)
		if got := decode(t, frame); !bytes.Equal(got, content) {
			t.Fatalf("seed %d: decoded %d bytes, want %d", seed, len(got), len(content))
		}
		frames, contents = append(frames, frame...), append(contents, content...)
		m := blockModes(t, frame)
		for k := range m {
			for mode := range m[k] {
				all[k][mode] += m[k][mode]
			}
		}
	}
	t.Logf("blocks by kind (literal lengths, offsets, match lengths) and mode (predefined, RLE, own, repeat): %v", all)
	for mode, name := range []string{"predefined", "RLE", "a table of its own", "the last block's"} {
		if all[0][mode]+all[1][mode]+all[2][mode] == 0 {
			t.Errorf("no block used %s", name)
		}
	}
	cmd := exec.Command(testutil.Tool(t, "zstd"), "-d", "-c", "-q")
	cmd.Stdin = bytes.NewReader(frames)
	if got, err := cmd.Output(); err != nil || !bytes.Equal(got, contents) {
		t.Fatalf("zstd -d: %v, %d bytes, want %d", err, len(got), len(contents))
	}
}

// commonSuffix counts the bytes two slices end alike as the byte loop it
// replaced did, whether they differ within its first eight bytes, a later
// eight or the bytes left over, and whichever is the shorter.
func TestCommonSuffix(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "", 0},
		{"abc", "xbc", 2},
		{"abcdefghij", "abcdefghij", 10},
		{"0123456789abcdefghij", "x123456789abcdefghij", 19},
		{"0123456789abcdefghij", "9abcdefghij", 11},
		{"0123456789abcdefghij", "0123456789abcdefghiX", 0},
		{"0123456789abcdefghij", "0123456789abXdefghij", 7},
		{"0123456789abcdefghij", "0123456789abcdefghij"[4:], 16},
	} {
		if got := commonSuffix([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("commonSuffix(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		var slow int
		for slow < len(c.a) && slow < len(c.b) && c.a[len(c.a)-1-slow] == c.b[len(c.b)-1-slow] {
			slow++
		}
		if slow != c.want {
			t.Errorf("case %q %q: the byte loop gives %d", c.a, c.b, slow)
		}
	}
	// Every pair of lengths up to 24, alike to the start or differing
	// at each place of the shorter.
	base := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	for la := range 25 {
		for lb := range 25 {
			for diff := -1; diff < min(la, lb); diff++ {
				a, b := slices.Clone(base[len(base)-la:]), slices.Clone(base[len(base)-lb:])
				want := min(la, lb)
				if diff >= 0 {
					a[la-1-diff] = '#'
					want = diff
				}
				if got := commonSuffix(a, b); got != want {
					t.Fatalf("commonSuffix(%q, %q) = %d, want %d", a, b, got, want)
				}
			}
		}
	}
}

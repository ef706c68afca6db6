package framesum_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/framesum"
)

// content is what the test frames hold: long runs, as a frame of parked
// goroutines' records has, and some varied bytes.
func content(n int) []byte {
	var b []byte
	for i := range n {
		b = append(b, byte(i), byte(i>>8), 7)
		b = append(b, bytes.Repeat([]byte{0x90, 0x4e, 1}, 50)...)
	}
	return b
}

// covered is a zstd frame of data without a content checksum, and its
// checksum frame.
func covered(t testing.TB, data []byte, opts ...zstd.EOption) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, append([]zstd.EOption{zstd.WithEncoderCRC(false)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	f := enc.EncodeAll(data, nil)
	return framesum.Append(f, xxhash.Sum64(f))
}

// stream is a sample region as the writer makes one: a frame with a
// content checksum, a covered frame, another writer's skippable frame, a
// covered frame with its content size in its header, and a last frame
// with a content checksum.
func stream(t testing.TB) (region, want []byte) {
	t.Helper()
	a, b, c, d := content(40), content(300), content(7), content(90)
	crc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	region = crc.EncodeAll(a, region)
	region = append(region, covered(t, b)...)
	region = append(region, 0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'x', 'y', 'z')
	region = append(region, covered(t, c, zstd.WithSingleSegment(true))...)
	region = crc.EncodeAll(d, region)
	return region, bytes.Join([][]byte{a, b, c, d}, nil)
}

// decode decompresses region through a Verifier, reading it in reads of
// the sizes reader gives.
func decode(region []byte, wrap func(io.Reader) io.Reader) ([]byte, error) {
	dec, err := zstd.NewReader(framesum.NewVerifier(wrap(bytes.NewReader(region))), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	return io.ReadAll(dec)
}

func TestVerifierPasses(t *testing.T) {
	region, want := stream(t)
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
	} {
		got, err := decode(region, wrap)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: decoded %d bytes, want the %d written", name, len(got), len(want))
		}
	}
}

// TestVerifierDamage flips each byte of a covered frame and of its sum:
// every such file must read as an error. Without the checksum frame, the
// decoder reads some of them without one.
func TestVerifierDamage(t *testing.T) {
	f := covered(t, content(200))
	frame := len(f) - framesum.Size
	unchecked := 0
	for i := range len(f) {
		if i >= frame && i < len(f)-8 {
			continue // the checksum frame's header: damage there harms no data
		}
		bad := bytes.Clone(f)
		bad[i] ^= 0x10
		if _, err := decode(bad, func(r io.Reader) io.Reader { return r }); err == nil {
			t.Fatalf("byte %d of %d flipped: read without an error", i, len(f))
		}
		if i < frame {
			if _, err := decode(bad[:frame], func(r io.Reader) io.Reader { return r }); err == nil {
				unchecked++
			}
		}
	}
	t.Logf("%d of %d flips read without an error when the checksum frame is left out", unchecked, frame)
}

func TestVerifierError(t *testing.T) {
	region, _ := stream(t)
	f := covered(t, content(20))
	frame := len(f) - framesum.Size
	// A flip the decoder does not notice by itself.
	flip := -1
	for i := frame - 1; i >= 0 && flip < 0; i-- {
		bad := bytes.Clone(f[:frame])
		bad[i] ^= 1
		if _, err := decode(bad, func(r io.Reader) io.Reader { return r }); err == nil {
			flip = i
		}
	}
	if flip < 0 {
		t.Fatal("the decoder notices every flip of the frame")
	}
	at := len(region)
	region = append(region, f...)
	region[at+flip] ^= 1
	_, err := decode(region, func(r io.Reader) io.Reader { return r })
	var fe *framesum.Error
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a *framesum.Error", err)
	}
	if fe.Offset != int64(at) {
		t.Errorf("the error blames byte %d, want the frame's start, %d: %v", fe.Offset, at, fe)
	}
	t.Log(err)

	for _, c := range []struct {
		name   string
		region []byte
	}{
		{"not zstd", []byte("Tachyon, not zstd")},
		{"a checksum frame alone", framesum.Append(nil, 1)},
		{"reserved block type", []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0x58, 0x07, 0, 0}},
	} {
		_, err := io.ReadAll(framesum.NewVerifier(bytes.NewReader(c.region)))
		if !errors.As(err, &fe) || fe.Offset != 0 {
			t.Errorf("%s: got %v, want a *framesum.Error at byte 0", c.name, err)
		}
	}
}

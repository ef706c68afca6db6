package reader_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// bomb builds a well-formed file whose few-kilobyte zstd region expands to
// one FULL sample and a REPEAT record of n samples, and whose header
// declares the most samples there can be.
func bomb(t *testing.T, n int) []byte {
	var raw bytes.Buffer
	rec := func(enc byte) {
		binary.Write(&raw, binary.LittleEndian, uint64(1)) // thread
		binary.Write(&raw, binary.LittleEndian, uint32(0)) // interpreter
		raw.WriteByte(enc)
	}
	rec(byte(tachyon.Full))
	raw.Write([]byte{0, 0, 1, 0}) // delta 0, status 0, depth 1, frame 0
	rec(byte(tachyon.Repeat))
	raw.Write(binary.AppendUvarint(nil, uint64(n)))
	var z bytes.Buffer
	zw, err := zstd.NewWriter(&z, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(raw.Bytes())
	pairs := make([]byte, 1<<20) // (delta 0, status 0) pairs
	for left := 2 * n; left > 0; left -= len(pairs) {
		zw.Write(pairs[:min(left, len(pairs))])
	}
	zw.Close()

	le := binary.LittleEndian
	h := make([]byte, tachyon.HeaderSize)
	le.PutUint32(h[0:], tachyon.Magic)
	le.PutUint32(h[4:], tachyon.Version)
	le.PutUint64(h[8:], 1)
	le.PutUint64(h[16:], 1000)
	le.PutUint32(h[24:], 1<<32-1)
	le.PutUint32(h[28:], 1)
	strOff := uint64(len(h) + z.Len())
	strs := []byte{4, 'f', '.', 'g', 'o', 1, 'f'}
	frames := []byte{0, 1, 2} // file 0, func 1, line 1
	le.PutUint64(h[32:], strOff)
	le.PutUint64(h[40:], strOff+uint64(len(strs)))
	le.PutUint32(h[48:], uint32(tachyon.CompressionZstd))
	f := append(append(append(h, z.Bytes()...), strs...), frames...)
	foot := make([]byte, tachyon.FooterSize)
	le.PutUint32(foot[0:], 2)
	le.PutUint32(foot[4:], 1)
	le.PutUint64(foot[8:], uint64(len(f)+len(foot)))
	return append(f, foot...)
}

// TestDecompressionBomb: a 100 M-sample bomb of a few kilobytes is refused
// after a bounded number of samples, with an error that says why.
func TestDecompressionBomb(t *testing.T) {
	b := bomb(t, 100_000_000)
	f, err := reader.NewFileBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	off, n := f.SampleRegion()
	err = f.Verify()
	t.Logf("%d-byte file, region %d bytes at %d: %v", len(b), n, off, err)
	if reader.Code(err) != reader.EZstd || !strings.Contains(err.Error(), "decompression bomb") {
		t.Fatalf("Verify: %v", err)
	}
}

package hostile

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/tachyon"
)

// A builder assembles a file from raw sample records, strings and frames.
type builder struct {
	records bytes.Buffer
	samples uint32 // declared in the header
	threads uint32
	strs    [][]byte
	frames  [][3]uint64 // file, func, line (zigzag)
}

// record starts a record of thread tid with encoding enc.
func (b *builder) record(tid uint64, enc tachyon.Encoding) {
	binary.Write(&b.records, binary.LittleEndian, tid)
	binary.Write(&b.records, binary.LittleEndian, uint32(0))
	b.records.WriteByte(byte(enc))
}

// uvarint appends v to the records.
func (b *builder) uvarint(v uint64) { b.records.Write(binary.AppendUvarint(nil, v)) }

// bytes returns the file with the records as its sample region, zstd
// compressed if compress; extra, if not nil, writes more raw records
// straight into the compressor (for regions too large to hold).
func (b *builder) bytes(compress bool, extra func(w *zstd.Encoder)) []byte {
	if !compress {
		return b.file(b.records.Bytes(), tachyon.CompressionNone)
	}
	var z bytes.Buffer
	// The default level: the best took seconds a file (tens under the
	// race detector) for regions a few percent smaller.
	zw, _ := zstd.NewWriter(&z, zstd.WithEncoderLevel(zstd.SpeedDefault))
	zw.Write(b.records.Bytes())
	if extra != nil {
		extra(zw)
	}
	zw.Close()
	return b.raw(z.Bytes())
}

// raw returns the file with an already zstd-compressed sample region.
func (b *builder) raw(region []byte) []byte { return b.file(region, tachyon.CompressionZstd) }

// file assembles header, sample region, tables and footer.
func (b *builder) file(region []byte, comp tachyon.Compression) []byte {
	var tables []byte
	for _, s := range b.strs {
		tables = append(binary.AppendUvarint(tables, uint64(len(s))), s...)
	}
	strLen := len(tables)
	for _, f := range b.frames {
		tables = binary.AppendUvarint(tables, f[0])
		tables = binary.AppendUvarint(tables, f[1])
		tables = binary.AppendUvarint(tables, f[2])
	}
	le := binary.LittleEndian
	h := make([]byte, tachyon.HeaderSize)
	le.PutUint32(h[0:], tachyon.Magic)
	le.PutUint32(h[4:], tachyon.Version)
	le.PutUint64(h[8:], 1)
	le.PutUint64(h[16:], 1000)
	le.PutUint32(h[24:], b.samples)
	le.PutUint32(h[28:], b.threads)
	strOff := uint64(len(h) + len(region))
	le.PutUint64(h[32:], strOff)
	le.PutUint64(h[40:], strOff+uint64(strLen))
	le.PutUint32(h[48:], uint32(comp))
	out := append(append(h, region...), tables...)
	foot := make([]byte, tachyon.FooterSize)
	le.PutUint32(foot[0:], uint32(len(b.strs)))
	le.PutUint32(foot[4:], uint32(len(b.frames)))
	le.PutUint64(foot[8:], uint64(len(out)+len(foot)))
	return append(out, foot...)
}

// Bomb returns a file whose small zstd region expands to one FULL
// sample and a REPEAT record of n samples, and whose header declares the
// most samples a file can hold.
func Bomb(n int) []byte {
	b := &builder{samples: 1<<32 - 1, threads: 1,
		strs: [][]byte{[]byte("f.go"), []byte("f")}, frames: [][3]uint64{{0, 1, 2}}}
	b.record(1, tachyon.Full)
	b.records.Write([]byte{0, 0, 1, 0}) // delta 0, status 0, depth 1, frame 0
	b.record(1, tachyon.Repeat)
	b.uvarint(uint64(n))
	return b.bytes(true, func(zw *zstd.Encoder) {
		pairs := make([]byte, 1<<20) // (delta 0, status 0) pairs
		for left := 2 * n; left > 0; left -= len(pairs) {
			zw.Write(pairs[:min(left, len(pairs))])
		}
	})
}

// DeepDistinct returns a file of one thread whose n samples each push one
// more frame onto the previous stack (SUFFIX records): n distinct stacks of
// depth 1..n, n²/2 frames in all, in a few bytes per sample.
func DeepDistinct(n int) []byte {
	b := &builder{samples: uint32(n), threads: 1, strs: [][]byte{[]byte("deep.go")}}
	for i := range n {
		b.strs = append(b.strs, []byte("main.f"+strconv.Itoa(i)))
		b.frames = append(b.frames, [3]uint64{0, uint64(i + 1), 2})
	}
	b.record(1, tachyon.Full)
	b.records.Write([]byte{0, 0, 1, 0})
	for i := 1; i < n; i++ {
		b.record(1, tachyon.Suffix)
		b.records.Write([]byte{1, 0}) // delta 1, status 0
		b.uvarint(uint64(i))          // shared: the whole previous stack
		b.uvarint(1)
		b.uvarint(uint64(i))
	}
	return b.bytes(true, nil)
}

// deepFull writes thread tid's FULL record, at time 0 and status 0, of a
// stack of tachyon.MaxReadDepth copies of frame 0.
func (b *builder) deepFull(tid uint64) {
	b.record(tid, tachyon.Full)
	b.records.Write([]byte{0, 0})
	b.uvarint(tachyon.MaxReadDepth)
	for range tachyon.MaxReadDepth {
		b.uvarint(0)
	}
}

// swapLeaf writes thread tid's POP_PUSH record, a tick later at status 0,
// that replaces its innermost frame with frame.
func (b *builder) swapLeaf(tid, frame uint64) {
	b.record(tid, tachyon.PopPush)
	b.records.Write([]byte{1, 0, 1, 1}) // delta 1, status 0, pop 1, push 1
	b.uvarint(frame)
}

// DeepAlternating returns a file of one stack tachyon.MaxReadDepth frames
// deep and n samples after it, each a POP_PUSH record that changes its
// innermost frame only, back and forth between two: a few bytes for n
// samples of the deepest stack a reader takes, which an export that
// resolves each sample's stack frame by frame pays for in full.
func DeepAlternating(n int) []byte {
	b := &builder{samples: uint32(n + 1), threads: 1,
		strs:   [][]byte{[]byte("deep.go"), []byte("main.f"), []byte("main.g")},
		frames: [][3]uint64{{0, 1, 2}, {0, 2, 4}}}
	b.deepFull(1)
	for i := range n {
		b.swapLeaf(1, uint64(1-i%2))
	}
	return b.bytes(true, nil)
}

// DeepCycling returns a file of one stack tachyon.MaxReadDepth frames deep
// and n samples after it, each a POP_PUSH record that changes its innermost
// frame only, to the next of k distinct frames in turn: k distinct stacks
// of the deepest a reader takes, met again every k samples. With k more
// than stacktab.CacheFrames / tachyon.MaxReadDepth (64) they are more than
// a cache of stacks holds, and an export that resolves or hashes a sample's
// stack whole pays its depth for each of the n samples.
func DeepCycling(k, n int) []byte {
	b := &builder{samples: uint32(n + 1), threads: 1, strs: [][]byte{[]byte("deep.go"), []byte("main.f")}}
	for i := range k {
		b.frames = append(b.frames, [3]uint64{0, 1, uint64(2 * (i + 1))})
	}
	b.deepFull(1)
	for i := range n {
		b.swapLeaf(1, uint64((i+1)%k))
	}
	return b.bytes(true, nil)
}

// DeepThreads returns a file of threads threads, each with a stack of
// tachyon.MaxReadDepth copies of one frame, then n samples of each whose
// record changes the innermost frame (one of 64): a few kilobytes whose
// distinct (stack, thread) samples list thousands of frames each, so that
// an export that lists each sample's frames (pprof's encoder holds 8 bytes
// a frame) must bound their sum, not only the distinct stacks' frames.
func DeepThreads(threads, n int) []byte {
	b := &builder{samples: uint32(threads * (n + 1)), threads: uint32(threads), strs: [][]byte{[]byte("deep.go"), []byte("main.f")}}
	for i := range 64 {
		b.frames = append(b.frames, [3]uint64{0, 1, uint64(2 * (i + 1))})
	}
	for th := range threads {
		b.deepFull(uint64(th + 1))
	}
	for i := range n {
		for th := range threads {
			b.swapLeaf(uint64(th+1), uint64((i+th)%63+1))
		}
	}
	return b.bytes(true, nil)
}

// DeepWander returns a file of threads threads whose n samples in all,
// interleaved, move each thread's stack of 60 to 200 frames (of eight) by
// every encoding: REPEAT, SUFFIX and POP_PUSH records that change a few
// inner frames, now and then a FULL one. The outermost frame of thread 1
// is a label frame, k=v. Exports that start from
// a thread's kept frames must find what they find from whole stacks.
func DeepWander(threads, n int) []byte {
	b := &builder{samples: uint32(n), threads: uint32(threads), strs: [][]byte{[]byte("w.go")}}
	for i := range 8 {
		b.strs = append(b.strs, []byte("main.w"+strconv.Itoa(i%5)))
		b.frames = append(b.frames, [3]uint64{0, uint64(len(b.strs) - 1), uint64(2 * i)})
	}
	lab := tachyon.LabelFrame(tachyon.Label{Key: "k", Value: "v"})
	b.strs = append(b.strs, []byte(lab.File), []byte(lab.Func))
	b.frames = append(b.frames, [3]uint64{uint64(len(b.strs) - 2), uint64(len(b.strs) - 1), 0})
	x := uint64(7)
	rnd := func(m int) int {
		x = x*6364136223846793005 + 1442695040888963407
		return int(x>>33) % m
	}
	depth := make([]int, threads)
	push := func(k int) {
		b.uvarint(uint64(k))
		for range k {
			b.uvarint(uint64(rnd(8)))
		}
	}
	for i := range n {
		t := rnd(threads)
		op := rnd(8)
		if depth[t] == 0 {
			op = 0
		}
		switch {
		case op == 0:
			b.record(uint64(t+1), tachyon.Full)
			b.records.Write([]byte{1, 0})
			depth[t] = 60 + rnd(140)
			if t == 0 {
				b.uvarint(uint64(depth[t]))
				for range depth[t] - 1 {
					b.uvarint(uint64(rnd(8)))
				}
				b.uvarint(8) // the label frame, outermost
			} else {
				push(depth[t])
			}
		case op < 3:
			b.record(uint64(t+1), tachyon.Repeat)
			b.uvarint(1)
			b.records.Write([]byte{1, byte(i % 2)})
		case op < 5:
			keep := max(1, depth[t]-rnd(5))
			b.record(uint64(t+1), tachyon.Suffix)
			b.records.Write([]byte{1, 0})
			b.uvarint(uint64(keep))
			k := rnd(5)
			push(k)
			depth[t] = keep + k
		default:
			pop := min(depth[t]-1, rnd(5))
			b.record(uint64(t+1), tachyon.PopPush)
			b.records.Write([]byte{1, 0})
			b.uvarint(uint64(pop))
			k := rnd(5)
			push(k)
			depth[t] += k - pop
		}
	}
	return b.bytes(true, nil)
}

// ManyStrings returns a file whose string table holds n empty strings (one
// byte each on disk) and one sample whose frame names the first two.
func ManyStrings(n int) []byte {
	b := &builder{samples: 1, threads: 1, strs: make([][]byte, n), frames: [][3]uint64{{0, 1, 2}}}
	b.record(1, tachyon.Full)
	b.records.Write([]byte{0, 0, 1, 0})
	return b.bytes(false, nil)
}

// ManyThreads returns a file of n threads with one one-frame sample each.
func ManyThreads(n int) []byte {
	b := &builder{samples: uint32(n), threads: uint32(n),
		strs: [][]byte{[]byte("t.go"), []byte("main.worker")}, frames: [][3]uint64{{0, 1, 2}}}
	for i := range n {
		b.record(uint64(i+1), tachyon.Full)
		b.records.Write([]byte{0, 0, 1, 0})
	}
	return b.bytes(true, nil)
}

// ManyFrames returns a file of n distinct frames, each the one frame of a
// sample of one thread.
func ManyFrames(n int) []byte {
	b := &builder{samples: uint32(n), threads: 1, strs: [][]byte{[]byte("f.go"), []byte("main.f")}}
	for i := range n {
		b.frames = append(b.frames, [3]uint64{0, 1, uint64(2 * (i + 1))})
		b.record(1, tachyon.Full)
		b.records.Write([]byte{1, 0, 1})
		b.uvarint(uint64(i))
	}
	return b.bytes(true, nil)
}

// Seeds returns small instances of every hostile shape, for fuzz targets'
// seed corpora.
func Seeds() [][]byte {
	return [][]byte{Bomb(5000), DeepDistinct(64), ManyThreads(16), ManyFrames(16), ManyStrings(64),
		HugeName(4096, 64), ProcNames()}
}

// MaxBomb returns the largest bomb a file can declare: one FULL sample and
// a REPEAT record of 2³²−2 samples, whose 8.6 GB of (delta 0, status 0)
// pairs are zstd RLE blocks of 128 KiB written by hand (4 bytes each), a
// 262 KB file in all. Its header declares 2³²−1 samples.
func MaxBomb() []byte {
	const n = 1<<32 - 2
	b := &builder{samples: 1<<32 - 1, threads: 1,
		strs: [][]byte{[]byte("f.go"), []byte("f")}, frames: [][3]uint64{{0, 1, 2}}}
	b.record(1, tachyon.Full)
	b.records.Write([]byte{0, 0, 1, 0})
	b.record(1, tachyon.Repeat)
	b.uvarint(n)
	return b.raw(rleFrame(b.records.Bytes(), 2*n))
}

// rleFrame returns one zstd frame holding prefix as a raw block, then zeros
// zero bytes as RLE blocks (RFC 8878, sections 3.1.1.1 and 3.1.1.2).
func rleFrame(prefix []byte, zeros uint64) []byte {
	const blockMax = 128 << 10
	le := binary.LittleEndian
	f := le.AppendUint32(nil, 0xFD2FB528)
	f = append(f, 0x00, 7<<3) // no content size or checksum; window 128 KiB
	block := func(last bool, typ, size uint32) {
		h := typ<<1 | size<<3
		if last {
			h |= 1
		}
		f = append(f, byte(h), byte(h>>8), byte(h>>16))
	}
	block(zeros == 0, 0, uint32(len(prefix)))
	f = append(f, prefix...)
	for zeros > 0 {
		n := min(zeros, blockMax)
		zeros -= n
		block(zeros == 0, 1, uint32(n))
		f = append(f, 0)
	}
	return f
}

// HugeName returns a file of one sample whose stack is depth copies of one
// frame whose function name is nameBytes long: a few bytes per frame on
// disk, nameBytes × depth of text in any export that writes names per
// frame.
func HugeName(nameBytes, depth int) []byte {
	b := &builder{samples: 1, threads: 1,
		strs:   [][]byte{[]byte("huge.go"), bytes.Repeat([]byte("n"), nameBytes)},
		frames: [][3]uint64{{0, 1, 2}}}
	b.record(1, tachyon.Full)
	b.records.Write([]byte{0, 0})
	b.uvarint(uint64(depth))
	b.records.Write(make([]byte, depth)) // frame 0, depth times
	return b.bytes(true, nil)
}

// ProcNames returns a file whose frames name files under /proc, /sys and
// /dev, which an export that embeds source must not read without consent.
func ProcNames() []byte {
	names := []string{"/proc/self/environ", "/proc/self/pagemap", "/sys/kernel/notes", "/dev/zero", "/dev/stdin"}
	b := &builder{samples: 1, threads: 1, strs: [][]byte{[]byte("main.f")}}
	for i, n := range names {
		b.strs = append(b.strs, []byte(n))
		b.frames = append(b.frames, [3]uint64{uint64(i + 1), 0, 2})
	}
	b.record(1, tachyon.Full)
	b.records.Write([]byte{0, 0})
	b.uvarint(uint64(len(names)))
	for i := range names {
		b.uvarint(uint64(i))
	}
	return b.bytes(false, nil)
}

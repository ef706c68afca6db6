package gotrace

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
)

// maxBatch is the largest batch the runtime writes (tracev2.MaxBatchSize).
const maxBatch = 64 << 10

// batch is one regular batch of a generation: the events one thread (M)
// wrote, data[off:end] of the generation.
type batch struct {
	m        uint64
	time     uint64 // raw timestamp at the batch's start
	off, end int
	next     int // the same thread's next batch, -1 if none
}

// span is a stretch of the generation's data.
type span struct{ off, end int }

// cpuSample is one CPU profile sample.
type cpuSample struct {
	time  Time
	g     uint64
	stack uint64
}

// generation is what one generation of the trace holds, with every
// buffer kept for the next.
type generation struct {
	num     uint64
	data    []byte  // every batch's data
	batches []batch // regular batches in trace order
	stacks  []span  // by stack id: the frames (4 varints each) and count
	nframes []uint16
	hashes  []uint64 // by stack id: stackHash, 0 not yet
	seed    maphash.Seed
	pcs     []byte // stackHash's scratch
	strings []span // by string id
	samples []cpuSample
	freq    float64 // nanoseconds per timestamp unit
	minTs   uint64
	clock   Clock
	snapTs  uint64 // the clock snapshot's raw timestamp
	hasSync bool
	small   int // generations in a row that used under a quarter of data
}

// smallGens is how many generations in a row may use under a quarter of
// the data buffer before it is let go: about a minute, longer than the
// collector's cycle in an idle program, whose generations are larger (each
// stack scan adds an event): a buffer let go between two cycles would be
// grown again at each, an allocation in the steady state.
const smallGens = 64

func (g *generation) reset() {
	// The data buffer follows the generations' size: it grows by a
	// quarter when one does not fit, and is let go after smallGens
	// generations that used less than a quarter of it, so that a burst
	// does not hold its memory for good and growth comes in small steps.
	if len(g.data) < cap(g.data)/4 {
		g.small++
	} else {
		g.small = 0
	}
	if g.small >= smallGens {
		g.data, g.small = nil, 0
	}
	g.num, g.data, g.batches = 0, g.data[:0], g.batches[:0]
	clear(g.stacks)
	clear(g.hashes)
	g.stacks, g.nframes, g.hashes = g.stacks[:0], g.nframes[:0], g.hashes[:0]
	clear(g.strings)
	g.strings, g.samples = g.strings[:0], g.samples[:0]
	if cap(g.samples) < minSamples {
		// A second of CPU samples of a few busy threads: generations of
		// varying size then rarely grow it once sampling is steady.
		g.samples = make([]cpuSample, 0, minSamples)
	}
	g.freq, g.minTs, g.hasSync, g.clock, g.snapTs = 0, 0, false, Clock{}, 0
}

// mul converts a raw timestamp to nanoseconds, as golang.org/x/exp/trace
// does (the same float arithmetic, so that both give the same times).
func (g *generation) mul(t uint64) Time { return Time(float64(t) * g.freq) }

// read reads the next generation from br; io.EOF if the trace ended.
func (g *generation) read(br *bufio.Reader, pace func()) error {
	g.reset()
	for {
		typ, err := br.ReadByte()
		if err == io.EOF && len(g.data) == 0 && g.num == 0 {
			return io.EOF
		}
		if err != nil {
			return fmt.Errorf("generation %d: %w", g.num, noEOF(err))
		}
		if typ == evEndOfGeneration {
			break
		}
		if err := g.readBatch(br, typ); err != nil {
			return fmt.Errorf("generation %d: %w", g.num, err)
		}
		if pace != nil {
			pace()
		}
	}
	return g.finish()
}

// finish checks a generation read whole and sets its times.
func (g *generation) finish() error {
	if g.freq == 0 {
		return fmt.Errorf("generation %d: no frequency event", g.num)
	}
	if !g.hasSync {
		return fmt.Errorf("generation %d: no clock snapshot", g.num)
	}
	g.clock.Trace = g.mul(g.snapTs)
	for i := range g.samples {
		g.samples[i].time = g.mul(uint64(g.samples[i].time))
	}
	slices.SortFunc(g.samples, func(a, b cpuSample) int { return cmp.Compare(a.time, b.time) })
	return nil
}

// noEOF turns an end of input inside a generation into ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readBatch reads one batch whose type byte was typ.
func (g *generation) readBatch(br *bufio.Reader, typ byte) error {
	exp := typ == evExperimentalBatch
	if typ != evEventBatch && !exp {
		return fmt.Errorf("expected a batch, found event type %d", typ)
	}
	if exp {
		if _, err := br.ReadByte(); err != nil {
			return noEOF(err)
		}
	}
	var hdr [4]uint64 // generation, thread, timestamp, size
	for i := range hdr {
		v, err := binary.ReadUvarint(br)
		if err != nil {
			return fmt.Errorf("batch header: %w", noEOF(err))
		}
		hdr[i] = v
	}
	if err := g.checkHeader(hdr); err != nil {
		return err
	}
	m, ts, size := hdr[1], hdr[2], hdr[3]
	off := len(g.data)
	if off+int(size) > cap(g.data) {
		g.data = slices.Grow(g.data, max(int(size), cap(g.data)/4, 64<<10))
	}
	g.data = g.data[:off+int(size)]
	if _, err := io.ReadFull(br, g.data[off:]); err != nil {
		return fmt.Errorf("batch data: %w", noEOF(err))
	}
	if exp {
		g.data = g.data[:off] // experiments are not read
		return nil
	}
	if g.minTs == 0 || ts < g.minTs {
		g.minTs = ts
	}
	b := batch{m: m, time: ts, off: off, end: off + int(size), next: -1}
	return g.classify(b)
}

// checkHeader checks a batch's header (generation, thread, timestamp,
// size) and takes its generation as the generation's.
func (g *generation) checkHeader(hdr [4]uint64) error {
	gen, size := hdr[0], hdr[3]
	if size > maxBatch {
		return fmt.Errorf("batch of %d bytes, the most is %d", size, maxBatch)
	}
	if gen == 0 || g.num != 0 && gen != g.num {
		return fmt.Errorf("batch of generation %d inside generation %d", gen, g.num)
	}
	g.num = gen
	return nil
}

// classify files a batch by its first event: a table, the CPU samples, the
// clock, or a thread's events.
func (g *generation) classify(b batch) error {
	if b.off == b.end {
		g.batches = append(g.batches, b)
		return nil
	}
	d := g.data[b.off:b.end]
	switch d[0] {
	case evStrings:
		return g.addStrings(b.off+1, b.end)
	case evStacks:
		return g.addStacks(b.off+1, b.end)
	case evCPUSamples:
		return g.addSamples(d[1:])
	case evSync:
		return g.setSync(d[1:], b.time)
	}
	g.batches = append(g.batches, b)
	return nil
}

// errShort is a varint cut off or too long.
var errShort = errors.New("bad varint")

// uvarint decodes a varint from d at i, returning the value and the index
// after it.
func uvarint(d []byte, i int) (uint64, int, error) {
	if i < len(d) && d[i] < 0x80 {
		return uint64(d[i]), i + 1, nil
	}
	v, j, ok := longVarint(d, i)
	if !ok {
		return 0, i, errShort
	}
	return v, j, nil
}

// setID grows table t to hold id and returns it; an id beyond the data
// read so far cannot be real.
func setID[T any](t []T, id uint64, limit int) ([]T, error) {
	if id == 0 || id > uint64(limit) {
		return t, fmt.Errorf("table id %d out of range", id)
	}
	if int(id) >= len(t) {
		t = slices.Grow(t, int(id)+1-len(t))
		var zero T
		for len(t) <= int(id) {
			t = append(t, zero)
		}
	}
	return t, nil
}

// addStrings indexes a strings batch, data[i:end].
func (g *generation) addStrings(i, end int) error {
	d := g.data[:end]
	for i < end {
		if d[i] != evString {
			return fmt.Errorf("strings batch: found event type %d", d[i])
		}
		id, j, err := uvarint(d, i+1)
		if err != nil {
			return fmt.Errorf("strings batch: %w", err)
		}
		n, j, err := uvarint(d, j)
		if err != nil || n > uint64(end-j) {
			return fmt.Errorf("strings batch: string %d cut off", id)
		}
		if g.strings, err = setID(g.strings, id, len(g.data)); err != nil {
			return fmt.Errorf("strings batch: %w", err)
		}
		g.strings[id] = span{j, j + int(n)}
		i = j + int(n)
	}
	return nil
}

// addStacks indexes a stacks batch, data[i:end]; frames are decoded only
// when asked for.
func (g *generation) addStacks(i, end int) error {
	d := g.data[:end]
	for i < end {
		if d[i] != evStack {
			return fmt.Errorf("stacks batch: found event type %d", d[i])
		}
		id, j, err := uvarint(d, i+1)
		if err != nil {
			return fmt.Errorf("stacks batch: %w", err)
		}
		n, j, err := uvarint(d, j)
		if err != nil || n > 128 {
			return fmt.Errorf("stacks batch: stack %d of %d frames", id, n)
		}
		start := j
		for range 4 * n {
			if _, j, err = uvarint(d, j); err != nil {
				return fmt.Errorf("stacks batch: stack %d cut off", id)
			}
		}
		if g.stacks, err = setID(g.stacks, id, len(g.data)); err != nil {
			return fmt.Errorf("stacks batch: %w", err)
		}
		for len(g.nframes) < len(g.stacks) {
			g.nframes = append(g.nframes, 0)
		}
		g.stacks[id], g.nframes[id] = span{start, j}, uint16(n)
		i = j
	}
	return nil
}

// minSamples is the CPU samples a generation has room for from the start.
const minSamples = 1024

// addSamples decodes a CPU samples batch; times stay raw until the
// frequency is known.
func (g *generation) addSamples(d []byte) error {
	for i := 0; i < len(d); {
		if d[i] != evCPUSample {
			return fmt.Errorf("CPU samples batch: found event type %d", d[i])
		}
		var v [5]uint64 // time, m, p, g, stack
		j := i + 1
		for k := range v {
			var err error
			if v[k], j, err = uvarint(d, j); err != nil {
				return fmt.Errorf("CPU samples batch: %w", err)
			}
		}
		gid := v[3]
		if gid == 0 {
			gid = NoGoroutine
		}
		g.samples = append(g.samples, cpuSample{time: Time(v[0]), g: gid, stack: v[4]})
		i = j
	}
	return nil
}

// setSync reads the sync batch: the frequency and the clock snapshot.
func (g *generation) setSync(d []byte, ts uint64) error {
	for i := 0; i < len(d); {
		typ := d[i]
		var v [4]uint64
		n := 1
		switch typ {
		case evFrequency:
		case evClockSnapshot:
			n = 4
		default:
			return fmt.Errorf("sync batch: found event type %d", typ)
		}
		j := i + 1
		for k := range n {
			var err error
			if v[k], j, err = uvarint(d, j); err != nil {
				return fmt.Errorf("sync batch: %w", err)
			}
		}
		i = j
		if typ == evFrequency {
			if v[0] == 0 {
				return errors.New("sync batch: zero frequency")
			}
			g.freq = 1.0 / (float64(v[0]) / 1e9)
			continue
		}
		g.hasSync = true
		g.snapTs = ts + v[0]
		g.clock.Wall = int64(v[2])*1e9 + int64(v[3])
	}
	return nil
}

// stack decodes stack id's frames into buf; nil if the generation has no
// such stack.
func (g *generation) stack(id uint64, buf []Frame, str func(uint64) string) []Frame {
	buf = buf[:0]
	if id == 0 || id >= uint64(len(g.stacks)) || g.stacks[id].end == 0 {
		return buf
	}
	s := g.stacks[id]
	d := g.data[:s.end]
	j := s.off
	for range g.nframes[id] {
		var v [4]uint64 // pc, func, file, line
		for k := range v {
			v[k], j, _ = uvarint(d, j) // checked when indexed
		}
		buf = append(buf, Frame{PC: v[0], Func: str(v[1]), File: str(v[2]), Line: v[3]})
	}
	return buf
}

// stackHash returns a hash of stack id's PCs, the same for the same frames
// in any generation (the ids differ), never 0; 0 for no such stack.
func (g *generation) stackHash(id uint64) uint64 {
	if id < uint64(len(g.hashes)) && g.hashes[id] != 0 {
		return g.hashes[id] // a stack's, found and hashed before
	}
	if id == 0 || id >= uint64(len(g.stacks)) || g.stacks[id].end == 0 {
		return 0
	}
	s := g.stacks[id]
	d := g.data[:s.end]
	j := s.off
	g.pcs = g.pcs[:0]
	for range g.nframes[id] {
		var pc uint64
		pc, j, _ = uvarint(d, j) // checked when indexed
		for range 3 {            // func, file, line
			_, j, _ = uvarint(d, j)
		}
		g.pcs = binary.LittleEndian.AppendUint64(g.pcs, pc)
	}
	h := maphash.Bytes(g.seed, g.pcs) | 1
	for uint64(len(g.hashes)) < uint64(len(g.stacks)) {
		g.hashes = append(g.hashes, 0)
	}
	g.hashes[id] = h
	return h
}

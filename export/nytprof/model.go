package nytprof

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"unsafe"

	"github.com/gotachyon/profiler/internal/labelframes"
	"github.com/gotachyon/profiler/internal/stacktab"
	"github.com/gotachyon/profiler/tachyon"
)

// maxLine is the largest line number NYTProf keeps; larger ones are
// reported as corrupt data by the loader.
const maxLine = 65535

// maxIntervalUS caps one sample's weight (100 s) so that tick sums over
// 2^32 samples cannot overflow.
const maxIntervalUS = 100_000_000

// ticksPerSec is the tick unit written to :ticks_per_sec (100 ns ticks).
const ticksPerSec = 10_000_000

// unknownFile names the file of frames that have none; it is never read.
const unknownFile = "(unknown)"

// runtimeCaller is the pseudo sub that calls every root frame.
const runtimeCaller = "main::RUNTIME"

type fileEntry struct {
	name string
	fid  uint32
}

type subEntry struct {
	sym         string // function symbol as in the profile
	file        int32  // index into model.files
	name        string // unique NYTProf name
	first, last int32  // smallest / largest usable line, 0 if none
	decl        int32  // declaration line, 0 if unknown
}

// canonFrame is a frame as the profile tells frames apart: its sub at its
// usable line (0 if none). Frames of the file's table that agree on both
// are one canonFrame, identified by its index in model.canons.
type canonFrame struct {
	sub, line int32
}

// subKey identifies a sub: a function symbol in a file.
type subKey struct {
	file, sym string
}

type edgeKey struct{ caller, callee, line int32 } // caller -1 = main::RUNTIME; line -1 = site's first line

type edgeEntry struct {
	key              edgeKey
	count            uint64
	incl, excl, reci uint64
	recDepth         uint32
}

type stackEntry struct {
	canon []int32 // root first
	edges []int32
	count uint64 // samples
	// arrivals counts the times a goroutine came to this stack from
	// another (or from none): the statements its line executed.
	arrivals uint64
}

type gkey struct {
	thread uint64
	interp uint32
}

type gstate struct {
	stack int32 // stack id of the previous counted sample, -1 none
}

type lineKey struct{ file, line int32 }

// model aggregates samples into what the NYTProf records need.
type model struct {
	src Source
	opt *Options
	w   uint64 // ticks per sample

	frames   []int32 // canon id of each frame-table index, -1 until resolved
	files    []fileEntry
	fileIdx  map[string]int32
	subs     []subEntry
	subIdx   map[subKey]int32
	canons   []canonFrame // by canon id
	canonIdx map[canonFrame]int32

	stacks   []stackEntry
	stackIdx map[string]int32
	// A deep stack is found by a 128-bit prefix hash of the file's code
	// frames, from the frames its record changed.
	hashes  stacktab.Prefixes[[2]uint64]
	deep    map[[2]uint64]int32 // a deep stack's hash -> its id
	moves   map[[2]int32]int    // (from, to) stack ids -> calls kept (shared)
	edges   []edgeEntry
	edgeIdx map[edgeKey]int32
	gor     map[gkey]*gstate

	samples uint64 // counted samples with at least one frame
	buf     []int32
	keyBuf  []byte
	budget  stacktab.Budget // frames kept across distinct stacks
	labels  *labelframes.Frames
}

func newModel(src Source, opt *Options) *model {
	iv := src.Interval()
	if iv > maxIntervalUS {
		iv = maxIntervalUS
	}
	n := src.NumFrames()
	m := &model{
		src: src, opt: opt, w: iv * (ticksPerSec / 1_000_000), budget: stacktab.Budget{Limit: opt.MaxStackFrames},
		frames:   make([]int32, n),
		fileIdx:  map[string]int32{},
		subIdx:   map[subKey]int32{},
		canonIdx: map[canonFrame]int32{},
		stackIdx: map[string]int32{},
		moves:    map[[2]int32]int{},
		deep:     map[[2]uint64]int32{},
		edgeIdx:  map[edgeKey]int32{},
		gor:      map[gkey]*gstate{},
		labels:   labelframes.New(n, src.Frame),
	}
	for i := range m.frames {
		m.frames[i] = -1
	}
	seed := maphash.MakeSeed()
	m.hashes = stacktab.Prefixes[[2]uint64]{Next: stacktab.Mix2,
		Root: [2]uint64{maphash.Comparable(seed, 0), maphash.Comparable(seed, 1)}}
	return m
}

// frame returns the canon id of frame index i, resolving it once.
func (m *model) frame(i uint32) (int32, error) {
	if int(i) >= len(m.frames) {
		return 0, fmt.Errorf("nytprof: frame index %d out of range (%d frames)", i, len(m.frames))
	}
	if c := m.frames[i]; c >= 0 {
		return c, nil
	}
	f := m.src.Frame(i)
	file := f.File
	if file == "" {
		file = unknownFile
	}
	fi, ok := m.fileIdx[file]
	if !ok {
		fi = int32(len(m.files))
		m.files = append(m.files, fileEntry{name: file})
		m.fileIdx[file] = fi
	}
	sk := subKey{file, f.Func}
	si, ok := m.subIdx[sk]
	if !ok {
		si = int32(len(m.subs))
		s := subEntry{sym: f.Func, file: fi}
		if m.opt.DeclLine != nil {
			if d, ok := m.opt.DeclLine(f.Func); ok && d > 0 && d <= maxLine {
				s.decl = int32(d)
			}
		}
		m.subs = append(m.subs, s)
		m.subIdx[sk] = si
	}
	line := f.Line
	if line < 1 || line > maxLine {
		line = 0
	}
	if s := &m.subs[si]; line > 0 {
		if s.first == 0 || line < s.first {
			s.first = line
		}
		if line > s.last {
			s.last = line
		}
	}
	ck := canonFrame{si, line}
	ci, ok := m.canonIdx[ck]
	if !ok {
		ci = int32(len(m.canons))
		m.canons = append(m.canons, ck)
		m.canonIdx[ck] = ci
	}
	m.frames[i] = ci
	return ci, nil
}

func (m *model) counts(status tachyon.Status) bool {
	return !m.opt.OnCPU || status.OnCPU()
}

// add takes a sample, weighing s.Count samples: the first may start new
// calls, the others continue them.
func (m *model) add(s *Sample) error {
	th := stacktab.Thread{ID: s.Thread, Interp: s.Interp}
	if !m.counts(s.Status) {
		m.hashes.Forget(th) // its next stack is hashed whole
		return nil
	}
	g := m.gor[gkey{s.Thread, s.Interp}]
	if g == nil {
		g = &gstate{stack: -1}
		m.gor[gkey{s.Thread, s.Interp}] = g
	}
	n := m.labels.Code(s.Stack) // label frames are no subs
	if n == 0 {
		g.stack = -1
		m.hashes.Forget(th)
		return nil
	}
	m.samples += s.n()
	sid, err := m.stackOf(th, s.Stack[:n], s.Kept-(len(s.Stack)-n))
	if err != nil {
		return err
	}
	if sid == g.stack {
		m.stacks[sid].count += s.n()
		return nil
	}
	m.arrive(g, sid, s.n())
	return nil
}

// stackOf returns the id of the stack of the file's frames code
// (innermost first) of a sample of thread th whose outermost kept frames
// are those of th's previous sample, interning it when new. A deep stack
// read before is found by a prefix hash of the file's frame indices,
// which costs the frames its record changed: a hostile file's records can
// each be 65,536 frames deep and differ in their last frame only, among
// more stacks than a cache holds. Two 64-bit hashes from independent
// roots make a collision among the deep stacks the frame budget allows
// about 2^-96 likely.
func (m *model) stackOf(th stacktab.Thread, code []uint32, kept int) (int32, error) {
	deep := len(code) >= stacktab.CacheMinDepth
	var h [2]uint64
	if deep {
		h = m.hashes.Of(th, code, kept)
		if sid, ok := m.deep[h]; ok {
			return sid, nil
		}
	} else {
		m.hashes.Forget(th) // hashed whole next time
	}
	cur := m.buf[:0]
	for i := len(code) - 1; i >= 0; i-- {
		c, err := m.frame(code[i])
		if err != nil {
			return 0, err
		}
		cur = append(cur, c)
	}
	m.buf = cur
	sid, err := m.intern(cur)
	if err != nil {
		return 0, err
	}
	if deep {
		if len(m.deep) >= maxDeep {
			clear(m.deep) // distinct file stacks can share one stack
		}
		m.deep[h] = sid
	}
	return sid, nil
}

// maxDeep bounds the deep stacks the model finds by their hash at once.
const maxDeep = 1 << 16

// arrive moves goroutine g to stack sid, different from its previous one,
// for n samples: the stack's line executes once more, and the calls the
// previous stack did not have (or had at another line of a caller) are
// new calls.
func (m *model) arrive(g *gstate, sid int32, n uint64) {
	st := &m.stacks[sid]
	st.count += n
	st.arrivals++
	k := 0
	if g.stack >= 0 {
		k = m.shared(g.stack, sid)
	}
	for _, e := range st.edges[k:] {
		m.edges[e].count++
	}
	g.stack = sid
}

// shared returns how many calls, from the root, a goroutine keeps when it
// moves from stack from to stack to: their common frames, and one more
// where the same function is now at another line (the same activation).
// Moves seen before are looked up rather than compared frame by frame
// again, up to maxMoves of them at once.
func (m *model) shared(from, to int32) int {
	mv := [2]int32{from, to}
	if k, ok := m.moves[mv]; ok {
		return k
	}
	prev, cur := m.stacks[from].canon, m.stacks[to].canon
	k := 0
	for k < len(prev) && k < len(cur) && prev[k] == cur[k] {
		k++
	}
	if k < len(prev) && k < len(cur) && m.canons[prev[k]].sub == m.canons[cur[k]].sub {
		k++
	}
	if len(m.moves) >= maxMoves {
		clear(m.moves)
	}
	m.moves[mv] = k
	return k
}

// maxMoves bounds the moves between stacks the model remembers.
const maxMoves = 1 << 16

// intern returns the id of the stack cur (root first), creating it and its
// edges when new.
func (m *model) intern(cur []int32) (int32, error) {
	kb := m.keyBuf[:0]
	for _, c := range cur {
		kb = binary.LittleEndian.AppendUint32(kb, uint32(c))
	}
	m.keyBuf = kb
	if sid, ok := m.stackIdx[unsafe.String(unsafe.SliceData(kb), len(kb))]; ok {
		return sid, nil
	}
	if err := m.budget.Add(len(cur)); err != nil {
		return 0, err
	}
	st := stackEntry{canon: append([]int32(nil), cur...), edges: make([]int32, len(cur))}
	for i, c := range cur {
		k := edgeKey{caller: -1, callee: m.canons[c].sub, line: -1}
		if i > 0 {
			pc := m.canons[cur[i-1]]
			k.caller = pc.sub
			if pc.line > 0 {
				k.line = pc.line
			}
		}
		e, ok := m.edgeIdx[k]
		if !ok {
			e = int32(len(m.edges))
			m.edges = append(m.edges, edgeEntry{key: k})
			m.edgeIdx[k] = e
		}
		st.edges[i] = e
	}
	sid := int32(len(m.stacks))
	m.stacks = append(m.stacks, st)
	m.stackIdx[string(kb)] = sid
	return sid, nil
}

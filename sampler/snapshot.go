package sampler

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/tachyon"
)

// Snapshot backend: runtime.Stack(all) dumps parsed into samples.

const (
	snapInitialBuf = 64 << 10
	// stwBudget is the largest share of wall time the dumps may stop the
	// world for: the governor stretches the interval to the last dump's
	// pause over stwBudget.
	stwBudget = 0.01
	// pausePerG is a tunable: the first guess of a dump's pause per
	// goroutine, before a dump has measured it, taken for a goroutine
	// about ten frames deep. It decides whether a dump is taken (see
	// MaxSnapshotPause) only until one has been; bench/MEASUREMENTS.md has
	// the pauses measured and how.
	pausePerG = 5 * time.Microsecond
)

// snapMaxBuf bounds a dump's buffer. A dump that fills it is cut short:
// it is not used (Stats.Refused). A variable for the tests.
var snapMaxBuf = 64 << 20

// MaxSnapshotPause is the longest the snapshot backend stops the world for
// one dump. Before each dump it estimates the pause as the goroutine count
// times the previous dump's pause per goroutine (before the first dump, a
// guess for goroutines about ten frames deep); a dump that would stop the
// world longer is not taken, and Stats.Refused says so. A pause that one
// stall made long does not refuse the dumps for good: while the fastest
// dump so far says the count fits, a dump retakes the measure a second
// after, then at intervals that double up to ten minutes while the pauses
// stay over the bound. The goroutine count at which the bound bites is
// MaxSnapshotPause over the machine's pause per goroutine, which grows
// with the goroutines' depth (bench/MEASUREMENTS.md).
const MaxSnapshotPause = 100 * time.Millisecond

// snapFrame is a cached frame of the text traceback.
type snapFrame struct {
	idx  uint32
	kind frameKind
	role role // the goroutine's role if this were its start function
}

// snapGor is a goroutine of the dumps.
type snapGor struct {
	track
	dump uint64 // the latest dump that listed it
	site string // its creation site, "" if the dump did not say
}

// snapshot is the snapshot backend; its loop owns every field but quit,
// done and busy.
type snapshot struct {
	em   *emitter
	quit chan struct{}
	done chan struct{}

	dumper
	frames    map[string]snapFrame // "func\x00file:line" -> frame
	sites     map[string]siteFrame // "func\x00file:line" of a go statement -> its created_by label
	elided    uint32               // the "[frames elided]" frame, once elidedSet
	elidedSet bool
	stacks    stackTable
	reasons   map[string]string // reason as printed -> canonical reason
	gs        map[uint64]*snapGor
	dumps     uint64
	key       []byte
	stack     []uint32
	self      uint64
	stw       time.Duration // total time spent inside runtime.Stack
	busy      atomic.Int64  // ns spent dumping and parsing, for the Auto supervisor
	gap       atomic.Int64  // ns the governor set between the latest dump and the next, for the Auto supervisor
}

func newSnapshot(em *emitter) *snapshot {
	return &snapshot{
		em:      em,
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
		frames:  make(map[string]snapFrame),
		sites:   make(map[string]siteFrame),
		stacks:  make(stackTable),
		reasons: make(map[string]string),
		gs:      make(map[uint64]*snapGor),
		stack:   make([]uint32, 0, maxDepth),
	}
}

func startSnapshot(em *emitter) *snapshot {
	sb := newSnapshot(em)
	go sb.loop()
	return sb
}

// stop ends the loop and waits for it. Under Auto's switch, the next
// backend learns the creation sites of the goroutines of the last dump,
// and which of them were counted.
func (sb *snapshot) stop() {
	close(sb.quit)
	<-sb.done
	if sb.em.handing.Load() {
		sb.em.sites = make(map[uint64]string, len(sb.gs))
		for id, g := range sb.gs {
			sb.em.carry(&g.track)
			if g.site != "" {
				sb.em.sites[id] = g.site
			}
		}
	}
}

func (sb *snapshot) loop() {
	defer close(sb.done)
	defer func() {
		if r := recover(); r != nil {
			sb.em.setErr(fmt.Errorf("sampler: snapshot backend panic: %v", r))
		}
	}()
	sb.self = goid.Current()
	period := time.Second / time.Duration(sb.em.cfg.Rate)
	// The ticks a dump stands for: those of the rate's grid since the
	// dump before, so that a goroutine's samples add up to the time it
	// spent however far the governor stretched the interval between
	// dumps (at the dumps' resolution). The ticks of a dump not taken or
	// not used are lost.
	grid := tickGrid{stepUS: uint64(period / time.Microsecond)}
	timer := time.NewTimer(period)
	defer timer.Stop()
	for !sb.em.failed() {
		select {
		case <-sb.quit:
			// The ticks since the last dump, up to the Stop request or
			// the handover, are one last dump's to stand for.
			t0 := time.Now()
			end := t0.UnixNano()
			if w := sb.em.stopWall.Load(); w != 0 && w < end {
				end = w
			}
			if grid.started {
				sb.take(&grid, t0, gotrace.Time(end))
			}
			return
		case <-timer.C:
		}
		t0 := time.Now()
		now := gotrace.Time(t0.UnixNano())
		if !grid.started {
			grid.start(now, uint64(t0.UnixMicro()))
		}
		stw, due := sb.take(&grid, t0, now)
		if !due {
			timer.Reset(time.Duration(grid.next - now))
			continue
		}
		next := period
		if g := time.Duration(float64(stw) / stwBudget); g > next {
			next = g
		}
		sb.gap.Store(int64(next))
		wait := next - time.Since(t0)
		if wait < 0 {
			wait = 0
		}
		timer.Reset(wait)
	}
}

// take dumps the goroutines at t0 for the grid's ticks since the last
// dump, up to end. It reports whether a tick was due, and the dump's
// pause: none when the governor refused it (see allow), whose ticks are
// lost, as those of a dump cut short are.
func (sb *snapshot) take(grid *tickGrid, t0 time.Time, end gotrace.Time) (stw time.Duration, due bool) {
	from := grid.n
	if grid.advance(end) == 0 {
		return 0, false
	}
	n := runtime.NumGoroutine()
	if est, ok := sb.allow(n, t0); !ok {
		// The governor stretched the wait after the latest dump to its
		// pause over stwBudget: a retake allow grants keeps the world
		// stopped within that share too.
		sb.em.refuse(n, est)
		return 0, true
	}
	dump, stw, whole := sb.dump(n, t0)
	sb.stw += stw
	if whole {
		sb.parse(dump, grid.span(from, grid.n))
	} else {
		// The goroutines past the cut would miss the instant (always
		// the same ones: the dump lists them in one order), and be
		// taken for ended.
		sb.em.overflow(n)
	}
	sb.em.watermark(uint64(t0.UnixMicro())) // the next dump is later
	sb.busy.Add(int64(time.Since(t0)))
	return stw, true
}

// snapG is the goroutine being parsed.
type snapG struct {
	id        uint64
	state     gstate
	reason    []byte
	panicking bool
	outer     role // role of the outermost frame so far: the start function
	skip      bool
	open      bool
	// created is its creation site's label, if hasCreated.
	created    siteFrame
	hasCreated bool
}

// parse turns one dump into samples at the ticks of sp, each goroutine's
// state and stack at the dump standing for all of them, then forgets the
// goroutines it no longer lists.
func (sb *snapshot) parse(b []byte, sp span) {
	sb.em.ticks += uint64(sp.n)
	sb.em.dumps++
	sb.dumps++
	var g snapG
	var fn []byte      // function of the frame whose file line comes next
	var creator []byte // function of the "created by" line whose file line comes next
	skipFile := false
	for len(b) > 0 {
		var line []byte
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			line, b = b, nil
		}
		if id, rest, ok := goid.ParseHeader(line); ok {
			sb.flush(&g, sp)
			g = snapG{id: id, open: true, skip: id == sb.self || id == sb.em.helper.Load() || sb.em.hideOwn && own.Has(id)}
			g.state, g.reason = parseState(rest)
			sb.stack = sb.stack[:0]
			fn = nil
			continue
		}
		if !g.open || g.skip {
			continue
		}
		switch {
		case len(line) == 0:
			sb.flush(&g, sp)
		case line[0] == '\t':
			if skipFile {
				skipFile = false
				if creator != nil {
					sb.creation(&g, creator, line[1:])
				}
				continue
			}
			if fn != nil {
				sb.addFrame(&g, fn, line[1:])
				fn = nil
			}
		case bytes.HasPrefix(line, []byte("created by ")):
			skipFile = true
			creator = nil
			if !sb.em.cfg.NoCreationLabels {
				creator = line[len("created by "):]
				if k := bytes.Index(creator, []byte(" in goroutine ")); k >= 0 {
					creator = creator[:k]
				}
			}
		case bytes.HasPrefix(line, []byte("...")) && bytes.Contains(line, []byte("elided")):
			// runtime.Stack keeps a deep stack's innermost and outermost
			// 50 frames: mark the gap.
			if len(sb.stack) < maxDepth {
				sb.stack = append(sb.stack, sb.elidedFrame())
			}
		default:
			if i := bytes.LastIndexByte(line, '('); i > 0 {
				fn = line[:i]
			}
		}
	}
	sb.flush(&g, sp)
	sb.sweep()
}

// parseState parses "[chan receive, 2 minutes, locked to thread]:".
func parseState(rest []byte) (gstate, []byte) {
	i := bytes.IndexByte(rest, '[')
	j := bytes.LastIndexByte(rest, ']')
	if i < 0 || j <= i {
		return gUnknown, nil
	}
	s := rest[i+1 : j]
	if k := bytes.Index(s, []byte(", ")); k >= 0 {
		s = s[:k]
	}
	if k := bytes.Index(s, []byte(" labels:")); k >= 0 {
		s = s[:k]
	}
	switch string(s) {
	case "running":
		return gRunning, nil
	case "runnable", "preempted":
		return gRunnable, nil
	case "syscall":
		return gSyscall, nil
	case "idle", "dead", "copystack", "???", "":
		return gUnknown, nil
	}
	return gWaiting, s
}

// elidedFrame returns the frame that marks the frames runtime.Stack left out
// of a deep stack.
func (sb *snapshot) elidedFrame() uint32 {
	if !sb.elidedSet {
		sb.elided, sb.elidedSet = sb.em.sink.Frame(tachyon.Frame{Func: elidedFrame}), true
	}
	return sb.elided
}

// elidedFrame names the gap runtime.Stack leaves in a deep stack.
const elidedFrame = "[frames elided]"

// siteFrame is a creation site and its label frame.
type siteFrame struct {
	idx  uint32
	site string
}

// creation sets g's creation-site label from its "created by fn" line
// and the file line after it ("file:line +0x1d"), through the cache.
func (sb *snapshot) creation(g *snapG, fn, loc []byte) {
	if k := bytes.LastIndexByte(loc, ' '); k > 0 {
		loc = loc[:k]
	}
	sb.key = append(append(append(sb.key[:0], fn...), 0), loc...)
	sf, ok := sb.sites[string(sb.key)]
	if !ok {
		k := bytes.LastIndexByte(loc, ':')
		if k <= 0 {
			return
		}
		line, err := strconv.Atoi(string(loc[k+1:]))
		if err != nil {
			return
		}
		sf.site = tachyon.CreationSite(string(fn), string(loc[:k]), line)
		sf.idx = sb.em.sink.Frame(tachyon.LabelFrame(tachyon.Label{Key: tachyon.LabelCreatedBy, Value: sf.site}))
		if len(sb.sites) >= maxSites {
			clear(sb.sites)
		}
		sb.sites[string(sb.key)] = sf
	}
	g.created, g.hasCreated = sf, true
}

// addFrame resolves one "func" + "file:line +0x1d" pair through the cache
// and normalises it as the trace backend does (a dump taken with
// GOTRACEBACK=system shows runtime frames).
func (sb *snapshot) addFrame(g *snapG, fn, loc []byte) {
	if k := bytes.LastIndexByte(loc, ' '); k > 0 {
		loc = loc[:k]
	}
	sb.key = append(append(append(sb.key[:0], fn...), 0), loc...)
	f, ok := sb.frames[string(sb.key)]
	if !ok {
		file, line := loc, 0
		if k := bytes.LastIndexByte(loc, ':'); k > 0 {
			if n, err := strconv.Atoi(string(loc[k+1:])); err == nil {
				file, line = loc[:k], n
			}
		}
		f.kind = classify(string(fn), string(file))
		if string(fn) == "panic" {
			f.kind = panicFrame
		}
		f.role = roleOf(string(fn))
		if f.kind != dropFrame {
			f.idx = sb.em.sink.Frame(tachyon.Frame{File: string(file), Func: string(fn), Line: int32(line)})
		}
		sb.frames[string(sb.key)] = f
	}
	g.outer = f.role
	if f.kind == panicFrame {
		g.panicking = true
	}
	if f.kind != dropFrame && len(sb.stack) < maxDepth {
		sb.stack = append(sb.stack, f.idx)
	}
}

// flush emits the goroutine parsed so far, if any.
func (sb *snapshot) flush(g *snapG, sp span) {
	if !g.open {
		return
	}
	g.open = false
	gor := sb.gs[g.id]
	if gor != nil {
		// Listed, so alive, even without a stack, or while it is the
		// profiler's for a while: forgotten, its handle would be asked
		// for again once it is the program's again, and the sink would
		// hold two threads of one id.
		gor.dump = sb.dumps
	}
	if g.skip || g.outer == roleHidden || len(sb.stack) == 0 {
		return
	}
	if gor == nil {
		gor = &snapGor{track: track{id: g.id}, dump: sb.dumps}
		sb.gs[g.id] = gor
	}
	if sb.em.cfg.Mode == CPU && g.state != gRunning && g.state != gRunnable && g.state != gSyscall {
		return
	}
	if g.hasCreated {
		// The label frame outermost, as the trace backend writes it.
		sb.stack = append(sb.stack[:min(len(sb.stack), maxDepth-1)], g.created.idx)
		gor.site = g.created.site
	}
	s := sb.stacks.intern(&stack{frames: sb.stack, panicking: g.panicking, evidence: true})
	if g.state == gWaiting {
		s = sb.em.waitStack(s, sb.reason(g.reason))
	}
	sb.em.write(&gor.track, sp, status(g.state, g.panicking), s)
}

// reason returns the canonical name of a wait reason as the dump prints it.
func (sb *snapshot) reason(r []byte) string {
	if c, ok := sb.reasons[string(r)]; ok {
		return c
	}
	c := canonReason(string(r))
	sb.reasons[string(r)] = c
	return c
}

// sweep forgets the goroutines that the latest dump did not list: they
// ended, so the state kept for them is bounded by the live goroutines.
func (sb *snapshot) sweep() {
	for id, g := range sb.gs {
		if g.dump != sb.dumps {
			sb.em.forget(&g.track)
			delete(sb.gs, id)
		}
	}
}

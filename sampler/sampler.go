package sampler

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Mode selects what a sample means.
type Mode uint8

const (
	// Wall samples every live goroutine at each tick, on or off CPU.
	Wall Mode = iota
	// CPU records one sample per CPU-profile sample of an on-CPU goroutine.
	CPU
)

// String returns "wall" or "cpu".
func (m Mode) String() string {
	switch m {
	case Wall:
		return "wall"
	case CPU:
		return "cpu"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode parses "wall" or "cpu" (case-insensitive).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "wall":
		return Wall, nil
	case "cpu":
		return CPU, nil
	}
	return 0, fmt.Errorf("sampler: unknown mode %q (want wall or cpu)", s)
}

// Backend selects how goroutine states and stacks are collected.
type Backend uint8

const (
	// Auto uses Trace unless it cannot be used, then Snapshot; while the
	// trace would cost more than snapshots (a program switching goroutines
	// very often, with few goroutines), it runs Snapshot instead, and
	// switches back when that ends (see Stats.Switches).
	Auto Backend = iota
	// Trace streams the runtime execution trace and parses it in-process.
	Trace
	// Snapshot parses periodic runtime.Stack(all) dumps.
	Snapshot
)

// String returns "auto", "trace" or "snapshot".
func (b Backend) String() string {
	switch b {
	case Auto:
		return "auto"
	case Trace:
		return "trace"
	case Snapshot:
		return "snapshot"
	}
	return fmt.Sprintf("Backend(%d)", uint8(b))
}

// ParseBackend parses "auto", "trace" or "snapshot" (case-insensitive).
func ParseBackend(s string) (Backend, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return Auto, nil
	case "trace":
		return Trace, nil
	case "snapshot":
		return Snapshot, nil
	}
	return 0, fmt.Errorf("sampler: unknown backend %q (want auto, trace or snapshot)", s)
}

// Config configures a Sampler. The zero value samples wall time at 100 Hz
// with the trace backend when available.
type Config struct {
	Mode Mode
	// Rate is the sampling rate in Hz; 0 means DefaultRate.
	Rate int
	// Backend is the requested backend. Auto uses Trace unless it cannot be
	// used, then Snapshot, and moves between them to keep the cost low. A
	// requested Trace also falls back to Snapshot, but never switches.
	Backend Backend
	// NoWaitReasonFrames, if true, omits the synthetic "[chan receive]"
	// innermost frame of blocked goroutines.
	NoWaitReasonFrames bool
	// NoCreationLabels, if true, omits the label tachyon.LabelCreatedBy
	// (where each goroutine was created) from the samples.
	NoCreationLabels bool
	// LeakProfile, if positive, has the trace backend take the runtime's
	// goroutine leak profile (Go 1.27 and later) every LeakProfile and at
	// Stop, and label the goroutines it proves can never wake
	// (tachyon.LabelLeak). Each one stops the world for a dump of every
	// goroutine: see leakprof.go. Where the profile does not exist,
	// Stats.LeakProfile says so.
	LeakProfile time.Duration
	// NoCPUSamples, in wall mode, leaves the CPU profiler alone, for an
	// application that takes its own CPU profiles while a wall profile
	// runs (pprof.StartCPUProfile fails while the sampler holds the
	// process's one CPU profile). Wall mode otherwise runs it at 100 Hz:
	// its samples alone say where a running goroutine's code is and
	// whether its thread ran. Without them a goroutine holding a P is
	// taken to be on a CPU, at the stack where the scheduler last saw it
	// (a preemption, a block, a system call): biased toward those places,
	// and CPU time is the time on a P. See the package doc. CPU mode
	// always runs the CPU profiler.
	NoCPUSamples bool
	// AwaitCPUProfile, when positive, leaves the CPU profiler free for
	// that long after Start to an application about to start its own CPU
	// profile: a test binary run with -test.cpuprofile, whose testing
	// package starts it just after TestMain has started the sampler
	// (pprof.StartCPUProfile would fail while the sampler holds the
	// process's one CPU profile). The trace backend shares the
	// application's profile once it runs, as it does one that runs at
	// Start, and takes the CPU profiler if it is still free when the time
	// is up (Stats.CPUProfile says so). Until then running goroutines have
	// no CPU samples.
	AwaitCPUProfile time.Duration
	// Observer, if set, is told of what the sampler sees beside the
	// samples it writes (see Observer; Tee tells several).
	Observer Observer
	// Log, if set, is called from a sampler goroutine, one call at a time,
	// with a line the operator should see at once, while the profile runs:
	// that the sampler shares the CPU profile the application runs, and
	// that it started the CPU profiler again after the application stopped
	// it (see Stats.CPUProfile), and that the sink failed, which stops
	// the sampling (Stop returns the error).
	Log func(msg string)
}

// DefaultRate is the sampling rate used when Config.Rate is 0.
const DefaultRate = 100

// MaxRate is the highest accepted Config.Rate.
const MaxRate = 10000

// Stats summarises a finished sampling run.
type Stats struct {
	// Backend is the backend that ran (never Auto); with Auto, the one
	// running at Stop.
	Backend Backend
	// Switches lists the Auto supervisor's changes of backend, if any.
	Switches []Switch
	Mode     Mode
	// Samples is the number of samples the sink accepted.
	Samples uint64
	// Ticks is the number of sampling instants: wall-mode ticks (virtual
	// ticks for the trace backend; for the snapshot backend, the ticks
	// its dumps stood for) or, in CPU mode, CPU samples seen (for the
	// snapshot backend, as in wall mode).
	Ticks uint64
	// Dumps is the number of runtime.Stack dumps the snapshot backend
	// parsed. Each stands for the ticks of the rate since the one
	// before: fewer Dumps than Ticks says the governor stretched the
	// interval between them, and the samples, whose time still adds up,
	// resolve it only to the dumps' interval.
	Dumps uint64
	// Goroutines is the number of distinct goroutines that appear in at
	// least one sample.
	Goroutines int
	// AchievedHz is Ticks divided by the wall time from Start to the Stop
	// request, with one period more for each grid of wall-mode ticks the
	// trace backend began (one, unless Auto switched backends), whose
	// first tick is at its start: the rate asked for when no tick was
	// missed, however short the profile.
	AchievedHz float64
	// Dropped counts samples the sink rejected.
	Dropped uint64
	// Unparsed counts wall-mode samples not written because Stop's bound
	// on the parse of the trace's end (MaxStopParse) passed first: the
	// ticks between the last event parsed and the Stop request, of every
	// goroutine the parse knew live then. The log says so too.
	Unparsed uint64
	// Unmet estimates, when Stop's bound passed, how many goroutines
	// live as the tracer started the parse never met (a parked one is
	// reported by the runtime only at the end of a generation, which a
	// profile shorter than one reaches after the Stop request): none of
	// their samples is written. It is runtime.NumGoroutine just after the
	// tracer started less the goroutines live then that the parse met
	// (unmet.go).
	Unmet int
	// RuntimeStop is how long Stop waited for the runtime to stop its
	// execution trace and the CPU profile the trace backend ran (zero
	// for the snapshot backend): what a program's own trace.Stop and
	// pprof.StopCPUProfile would take at that moment. The rest of
	// Stop's time is the profiler's: the trace's last generation parsed
	// and every goroutine's last samples written (StopParse).
	RuntimeStop time.Duration
	// StopParse is how long Stop waited, once the runtime had stopped,
	// for the parse of the trace's end and every goroutine's last samples
	// written into the sink (zero for the snapshot backend). What a
	// Stop took beyond RuntimeStop and StopParse is its sink's finish:
	// for a profile, the file's last records, its end and its sync.
	StopParse time.Duration
	// Fallback says why the trace backend was not used ("" if it was or was
	// not requested).
	Fallback string
	// Refused says why sampling instants were not taken, and how many
	// ("" if none were refused): the snapshot backend does not take a dump
	// that would stop the world longer than MaxSnapshotPause, and does not
	// use one cut short by its buffer's bound (64 MB).
	Refused string
	// Err is the first problem met (sink error, parse error, recovered panic).
	Err error
	// CPUSamples counts the CPU-profile samples the trace carried: in CPU
	// mode the samples (Ticks counts those of goroutines), in wall mode the
	// evidence of where running goroutines are.
	CPUSamples uint64
	// CPUProfile says how the trace backend's CPU samples came when it did
	// not hold the CPU profiler throughout ("" if it did, or did not use
	// it). It may have shared the CPU profile the application ran at
	// Start: the samples then come at the application's rate. When the
	// application stops the CPU profile (its own, or the sampler's:
	// pprof.StopCPUProfile stops whichever runs), the sampler starts it
	// again at the profile's rate once its watcher sees it stopped.
	// The application's own pprof.StartCPUProfile fails after that, as it
	// does when the sampler starts first.
	CPUProfile string
	// CPUGap bounds the time without CPU samples, summed: from the
	// application's stopping the CPU profile to the sampler's starting it
	// again, or to the trace backend's end. CPU mode has no samples then;
	// wall mode's goroutines on a P are runnable under "[no CPU sample]".
	CPUGap time.Duration
	// NoCPUSample counts wall-mode ticks at which a goroutine held a P
	// while its CPU samples showed no CPU time for it (its thread waited
	// for a CPU, or its runs were too short for the CPU profiler to see):
	// written as runnable, under a "[no CPU sample]" frame.
	NoCPUSample uint64
	// CPUUnplaced counts CPU samples wall mode could not place: the
	// goroutine had no tick left to take them, and, ended, no running
	// tick of another goroutine of its creation site took them either
	// (CPUAdopted). Their CPU time is missing from the on-CPU time. In
	// either mode it counts too the CPU samples read after their
	// goroutine's end (the runtime reads its CPU profile into the trace
	// late), which no goroutine is left to take; CPU mode counts all the
	// others.
	CPUUnplaced uint64
	// CPUAdopted counts CPU samples of goroutines that ended with no tick
	// of their own to take them (shorter than a tick's period, most of
	// them), taken by a running tick of another goroutine of the same
	// creation site that had no CPU sample (see orphans.go).
	CPUAdopted uint64
	// LabelsOver counts the label keys that passed the bound on distinct
	// values (10,000 of one key, 50,000 of all): their further values
	// were written as tachyon.LabelValuesOver, and the log said so.
	LabelsOver int
	// LeakProfiles counts the goroutine leak profiles taken
	// (Config.LeakProfile), LeakRefused those not taken because the dump
	// would stop the world longer than MaxSnapshotPause, and LeakMarked
	// the goroutines they labelled unreachable. LeakProfile says why
	// none could be taken ("" if they could, or were not asked for).
	LeakProfiles, LeakRefused, LeakMarked int
	LeakProfile                           string
}

// ErrRunning is returned by Start while another Sampler runs in this process.
var ErrRunning = errors.New("sampler: already running")

// running guards the one-sampler-per-process rule.
var running atomic.Bool

// Sampler is a running sampler. Its methods are safe for concurrent use.
type Sampler struct {
	cfg     Config
	backend Backend

	stopOnce sync.Once
	stopFn   func()    // stops the backend and waits for its goroutine
	auto     *adaptive // the Auto supervisor, nil for a fixed backend
	stats    Stats
	start    time.Time
	em       *emitter // the emitter shared with the backend goroutine
}

// Start begins sampling into sink. It never fails because the trace backend is
// unavailable (it falls back to Snapshot); it fails only for bad Config or when
// a sampler is already running in this process (ErrRunning).
func Start(cfg Config, sink Sink) (*Sampler, error) {
	if sink == nil {
		return nil, errors.New("sampler: nil sink")
	}
	if cfg.Mode != Wall && cfg.Mode != CPU {
		return nil, fmt.Errorf("sampler: invalid mode %d", cfg.Mode)
	}
	if cfg.Backend > Snapshot {
		return nil, fmt.Errorf("sampler: invalid backend %d", cfg.Backend)
	}
	if cfg.Rate == 0 {
		cfg.Rate = DefaultRate
	}
	if cfg.Rate < 0 || cfg.Rate > MaxRate {
		return nil, fmt.Errorf("sampler: rate %d Hz out of range 1..%d", cfg.Rate, MaxRate)
	}
	if !running.CompareAndSwap(false, true) {
		return nil, ErrRunning
	}
	s := &Sampler{cfg: cfg, start: time.Now()}
	s.em = newEmitter(cfg, sink)
	s.em.hideOwn = true
	s.em.cpu.start, s.em.cpu.log = s.start, cfg.Log
	s.em.cpu.awaitUntil = s.start.Add(max(cfg.AwaitCPUProfile, 0))
	var fallback string
	switch cfg.Backend {
	case Auto:
		a, err := startAdaptive(s.em)
		if err == nil {
			s.backend, s.auto, s.stopFn = Trace, a, a.stop
		} else {
			fallback = err.Error()
		}
	case Trace:
		tb, err := startTrace(s.em, traceOpts{})
		if err == nil {
			s.backend = Trace
			s.stopFn = tb.stop
		} else {
			fallback = err.Error()
		}
	}
	if s.stopFn == nil {
		sb := startSnapshot(s.em)
		s.backend = Snapshot
		s.stopFn = sb.stop
	}
	s.stats.Fallback = fallback
	return s, nil
}

// Backend returns the backend actually running (never Auto).
func (s *Sampler) Backend() Backend {
	if s.auto != nil {
		return s.auto.backend()
	}
	return s.backend
}

// Stop stops sampling, flushes every remaining sample into the sink, and
// returns when the sink will not be called again. It is idempotent and safe
// from any goroutine (but not from inside the Sink). The error is Stats.Err.
func (s *Sampler) Stop() (Stats, error) {
	s.stopOnce.Do(func() {
		// The rate is measured up to the Stop request, not including the
		// flush that follows it, and no tick after the request is sampled.
		now := time.Now()
		s.em.stopWall.Store(now.UnixNano())
		s.stopFn()
		// The backend may have moved the request later (the last leak
		// profile's ticks); the monotonic clock measures up to it.
		elapsed := now.Sub(s.start) + time.Duration(s.em.stopWall.Load()-now.UnixNano())
		em := s.em
		s.stats.Backend = s.Backend()
		if s.auto != nil {
			s.stats.Switches = s.auto.switches
		}
		s.stats.Mode = s.cfg.Mode
		s.stats.Samples = em.samples
		s.stats.Ticks, s.stats.Dumps = em.ticks, em.dumps
		s.stats.Goroutines = em.goroutines
		s.stats.Dropped = em.dropped
		s.stats.Unparsed, s.stats.Unmet = em.unparsed, em.unmet
		s.stats.RuntimeStop, s.stats.StopParse = em.runtimeStop, em.stopParse
		s.stats.Err = em.err
		s.stats.Refused = em.refused()
		s.stats.CPUSamples = em.cpuSamples
		s.stats.NoCPUSample, s.stats.CPUUnplaced, s.stats.CPUAdopted = em.noCPU, em.cpuUnplaced, em.cpuAdopted
		s.stats.CPUProfile, s.stats.CPUGap = em.cpu.describe(s.cfg.Mode, s.cfg.Rate)
		s.stats.LeakProfiles, s.stats.LeakRefused, s.stats.LeakMarked = em.leakTaken, em.leakRefused, em.leakMarked
		s.stats.LeakProfile = em.leakNote
		s.stats.LabelsOver = em.labelBound.over
		// A grid's first tick is at its start: its ticks stand for the
		// time it ran and one period more.
		span := elapsed + time.Duration(em.grids)*(time.Second/time.Duration(s.cfg.Rate))
		if sec := span.Seconds(); sec > 0 {
			s.stats.AchievedHz = float64(em.ticks) / sec
		}
		running.Store(false)
	})
	return s.stats, s.stats.Err
}

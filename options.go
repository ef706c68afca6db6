package profiler

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
)

// DefaultRate is the sampling rate, in Hz, used unless WithRate says otherwise.
const DefaultRate = sampler.DefaultRate

// An Option configures Start. Options are applied in order; a later option
// overrides an earlier one of the same kind (WithExport, WithObserver and
// WithPath/WithOutput excepted: exports and observers accumulate, and the
// last output option wins).
type Option func(*config) error

type export struct {
	path string
	fn   func(f *reader.File, w io.Writer) error
}

type config struct {
	path        string
	out         io.WriteSeeker
	mode        sampler.Mode
	rate        int
	compression tachyon.Compression
	waitFrames  bool
	wallCPU     bool
	backend     sampler.Backend
	quiet       bool
	logger      *log.Logger
	exports     []export
	observers   []sampler.Observer
	segment     time.Duration
	keepFiles   int
	keepBytes   int64
	checkpoint  time.Duration
	awaitCPU    time.Duration // sampler.Config.AwaitCPUProfile, for RunTests

	// The recent window and captures (recent.go, capture.go).
	recent        time.Duration
	recentBytes   int64
	recentSet     bool // WithRecent was given
	noFile        bool
	recentSignal  os.Signal
	signalByEnv   bool // recentSignal is PROFILE_RECENT_SIGNAL's, whose lack of a window EnvOptions says
	captureDir    string
	capturePeriod time.Duration
	captureBefore time.Duration
	captureAfter  time.Duration
	captureKeep   int

	noCreation bool          // sampler.Config.NoCreationLabels (leaks.go)
	leakEvery  time.Duration // sampler.Config.LeakProfile (leaks.go)
}

func defaultConfig() config {
	return config{
		mode:        sampler.Wall,
		rate:        DefaultRate,
		compression: tachyon.CompressionZstd,
		waitFrames:  true,
		wallCPU:     true,
		backend:     sampler.Auto,
		checkpoint:  DefaultCheckpoint,
	}
}

// WithPath writes the profile to the named file at Stop, replacing a
// regular file of that name only with the finished profile; until then the
// samples stream into PartDir(path), whose last checkpoint a crash leaves
// readable (see WithCheckpoint). Start refuses a path that is a
// symbolic link or not a regular file, and never removes or truncates a
// file it did not create. Without WithPath or WithOutput, Start writes to
// a new file "tachyon-*.bin" in os.TempDir and logs its name (see
// Profile.Path).
func WithPath(path string) Option {
	return func(c *config) error {
		if path == "" {
			return errors.New("profiler: WithPath: empty path")
		}
		c.path, c.out = path, nil
		return nil
	}
}

// WithOutput writes the profile to w, starting at w's current offset. Stop
// finalizes the format (which needs the Seek) but does not close w. With
// WithExport, w must also be an io.ReaderAt (such as *os.File), for the
// exports to read the profile back: Start fails otherwise.
func WithOutput(w io.WriteSeeker) Option {
	return func(c *config) error {
		if w == nil {
			return errors.New("profiler: WithOutput: nil writer")
		}
		c.out, c.path = w, ""
		return nil
	}
}

// WithMode selects what is sampled: Wall (the default) takes, at every
// tick, one sample of every live goroutine whether it runs, waits or is
// blocked; CPU records one sample per CPU-profiling signal, that is only
// goroutines on a CPU.
func WithMode(m Mode) Option {
	return func(c *config) error {
		if m != sampler.Wall && m != sampler.CPU {
			return fmt.Errorf("profiler: WithMode: unknown mode %d", m)
		}
		c.mode = m
		return nil
	}
}

// WithRate sets the sampling rate in Hz (default DefaultRate, 100). It must be
// between 1 and sampler.MaxRate (10000). The file header's interval is 1e6/hz µs; the rate
// actually achieved may be lower under load (the samples carry their real
// timestamps), and CPU mode is capped by the kernel tick.
func WithRate(hz int) Option {
	return func(c *config) error {
		if hz < 1 || hz > sampler.MaxRate {
			return fmt.Errorf("profiler: WithRate: %d Hz out of range [1, %d]", hz, sampler.MaxRate)
		}
		c.rate = hz
		return nil
	}
}

// WithCompression sets how the sample region is stored: CompressionZstd
// (the default) or CompressionNone.
func WithCompression(comp Compression) Option {
	return func(c *config) error {
		if comp != tachyon.CompressionNone && comp != tachyon.CompressionZstd {
			return fmt.Errorf("profiler: WithCompression: unknown compression %d", comp)
		}
		c.compression = comp
		return nil
	}
}

// WithWaitReasonFrames says whether a blocked goroutine's wait reason is kept
// as a synthetic innermost frame such as "[chan receive]" (line 0) so that
// flame graphs show it. It is on by default.
func WithWaitReasonFrames(on bool) Option {
	return func(c *config) error {
		c.waitFrames = on
		return nil
	}
}

// WithWallCPUSamples says whether a wall-mode profile runs the CPU profiler
// (at 100 Hz) to learn where running goroutines are and whether their
// threads ran. It is on by default: a running goroutine's ticks take the
// stacks of its CPU samples, and time on a P without CPU samples is
// runnable, not CPU. WithWallCPUSamples(false) leaves the CPU profiler to
// an application that takes its own CPU profiles meanwhile; a goroutine
// holding a P is then taken to be on a CPU, at the stack where the
// scheduler last saw it, which is biased toward yields, preemptions and
// system calls (see sampler.Config.NoCPUSamples). CPU mode always uses the
// CPU profiler.
func WithWallCPUSamples(on bool) Option {
	return func(c *config) error {
		c.wallCPU = on
		return nil
	}
}

// WithBackend chooses the sampler backend. Auto (the default) uses the
// execution trace, through whichever of the runtime's two trace slots (a
// flight recorder's, or trace.Start's) the application leaves free, unless
// it cannot (the application holds both, or the trace parser does not know
// this Go version), and then falls back to snapshots; Trace and Snapshot
// ask for one explicitly. Profile.Backend tells which one ran.
func WithBackend(b Backend) Option {
	return func(c *config) error {
		if b > sampler.Snapshot {
			return fmt.Errorf("profiler: WithBackend: unknown backend %d", b)
		}
		c.backend = b
		return nil
	}
}

// WithQuiet(true) silences the informational log lines written at Start and
// Stop. Problems are still logged whatever this option says: at Stop, once,
// and a write that fails (which stops the sampling) also when it happens.
func WithQuiet(quiet bool) Option {
	return func(c *config) error {
		c.quiet = quiet
		return nil
	}
}

// WithLogger sends the profiler's log lines to l instead of the standard
// log package's default logger.
func WithLogger(l *log.Logger) Option {
	return func(c *config) error {
		c.logger = l
		return nil
	}
}

// WithExport asks Stop, once the Tachyon file is finalized, to open it with
// package reader and call fn with a writer to a file created at path (for
// exporters to other formats). Exports run in the order given; their errors
// join into Stop's error and do not affect the Tachyon file.
func WithExport(path string, fn func(f *reader.File, w io.Writer) error) Option {
	return func(c *config) error {
		if path == "" || fn == nil {
			return errors.New("profiler: WithExport: empty path or nil function")
		}
		c.exports = append(c.exports, export{path, fn})
		return nil
	}
}

// WithObserver has o told of what the sampler sees beside the samples it
// writes, such as the innermost PC of every on-CPU sample (see
// sampler.Observer), from the goroutine that writes the samples, one call
// at a time. Observers accumulate: each is told in the order given. An
// observer that also has a Close() error method (an io.Closer) is closed at
// Stop, once the sampling has ended, and its error joins into Stop's error.
// It is the hook of PC-level exports such as package dcpi's AtStop:
//
//	profiler.Start(profiler.WithObserver(dcpi.AtStop("cpu.dcpi", 100)))
func WithObserver(o sampler.Observer) Option {
	return func(c *config) error {
		if o == nil {
			return errors.New("profiler: WithObserver: nil observer")
		}
		c.observers = append(c.observers, o)
		return nil
	}
}

// MinSegment is the shortest period WithSegment accepts.
const MinSegment = 100 * time.Millisecond

// WithSegment writes the profile as a series of finalized Tachyon files,
// one per period d, so that a service's profile can be read while it runs
// and a crash loses at most the open segments. The path of WithPath then
// names a directory (created if missing; without WithPath, a new temporary
// directory); see segment.Name for the file names, which sort by start
// time, and Profile.OnSegment for a hook on each finalized file. It cannot
// be combined with WithOutput or WithExport. d must be at least MinSegment.
// The trace backend writes its samples about a second late, later under
// load, and only a few segments are open at once: a period shorter than
// that lag gives segments of whole multiples of d (with d of 3 s, most of
// 6 s), which Profile.SegmentStats counts as Extended.
func WithSegment(d time.Duration) Option {
	return func(c *config) error {
		if d < MinSegment {
			return fmt.Errorf("profiler: WithSegment: %v is shorter than %v", d, MinSegment)
		}
		c.segment = d
		return nil
	}
}

// WithKeep bounds the disk a segmented profile (WithSegment) uses: when
// files or bytes is positive, the oldest finalized segments in the
// directory, whatever run wrote them, are deleted while more than files
// of them, or more than bytes in all, are kept. The newest finalized
// segment and the open one are always kept; only files named as segments
// are deleted: this run's if they are still the files it wrote, another
// run's if they begin with a valid Tachyon header (see segment.Writer),
// so that runs sharing a directory share its budget. Zero means no bound.
func WithKeep(files int, bytes int64) Option {
	return func(c *config) error {
		if files < 0 || bytes < 0 {
			return fmt.Errorf("profiler: WithKeep: negative bound (%d files, %d bytes)", files, bytes)
		}
		c.keepFiles, c.keepBytes = files, bytes
		return nil
	}
}

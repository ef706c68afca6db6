package profiler

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gotachyon/profiler/internal/envnames"
	"github.com/gotachyon/profiler/internal/quietpipe"
	"github.com/gotachyon/profiler/sampler"
)

// Environment variables read by EnvOptions (and so by package auto and
// RunTests).
const (
	EnvOut  = envnames.Out  // output path; profiling is off when unset or empty
	EnvMode = envnames.Mode // "wall" (default) or "cpu"
	EnvRate = envnames.Rate // sampling rate in Hz (default 100)
	// EnvSegment is a segment period ("60s"): PROFILE_OUT then names a
	// directory of segments (see WithSegment).
	EnvSegment = envnames.Segment
	// EnvKeep and EnvKeepBytes bound the segments kept (see WithKeep):
	// a number of files, and a size such as "500M".
	EnvKeep      = envnames.Keep
	EnvKeepBytes = envnames.KeepBytes
	// EnvCheckpoint is the checkpoint period of a profile written to a
	// file ("5s"; see WithCheckpoint).
	EnvCheckpoint = envnames.Checkpoint
	// EnvRecent is the length of the recent window kept in memory ("60s",
	// or "off"; see WithRecent), and EnvRecentBytes its bound ("16M").
	// Set without PROFILE_OUT, it profiles into the window alone
	// (WithNoFile).
	EnvRecent      = envnames.Recent
	EnvRecentBytes = envnames.RecentBytes
	// EnvRecentSignal is the signal that takes a capture: "USR1", "USR2"
	// or "off", the default (see WithRecentSignal).
	EnvRecentSignal = envnames.RecentSignal
	// EnvCaptureDir is the directory of the captures (WithCaptureDir),
	// and EnvCapturePeriod the least time between two (WithCapturePeriod).
	EnvCaptureDir    = envnames.CaptureDir
	EnvCapturePeriod = envnames.CapturePeriod
)

// EnvOptions returns the options described by the environment: WithPath from
// PROFILE_OUT, WithMode from PROFILE_MODE, WithRate from PROFILE_RATE,
// WithSegment from PROFILE_SEGMENT (a Go duration) and WithKeep from
// PROFILE_KEEP (files) and PROFILE_KEEP_BYTES (bytes, or with a K, M, G or
// T suffix, powers of 1024; "KB", "KiB" and "k" read the same), and
// WithCheckpoint from PROFILE_CHECKPOINT (a Go duration), WithRecent from
// PROFILE_RECENT (a Go duration, or "off") and PROFILE_RECENT_BYTES (a
// size, as PROFILE_KEEP_BYTES), WithRecentSignal from
// PROFILE_RECENT_SIGNAL ("USR1", "USR2" or "off"), WithCaptureDir from
// PROFILE_CAPTURE_DIR and WithCapturePeriod from PROFILE_CAPTURE_PERIOD
// (a Go duration). ok is false when PROFILE_OUT is unset or empty
// (profiling is not wanted), unless PROFILE_RECENT keeps a window: the
// profile is then kept in memory only (WithNoFile); err reports a
// malformed variable.
//
// The first call in a process also logs a warning, through the standard
// log package as Start does, for every PROFILE_* variable set that no
// package of the profiler reads ("PROFILE_SEGEMENT is not a variable of
// the profiler: it has no effect; did you mean PROFILE_SEGMENT?"), and
// for every one that has no effect
// with the others (PROFILE_KEEP_BYTES without PROFILE_SEGMENT, any of
// them without PROFILE_OUT, PROFILE_CHECKPOINT with PROFILE_SEGMENT,
// PROFILE_RECENT_BYTES, PROFILE_RECENT_SIGNAL and the captures' variables
// without a recent window).
// The names of packages auto and upload count as the profiler's.
func EnvOptions() (opts []Option, ok bool, err error) {
	warnEnvOnce.Do(func() {
		for _, w := range envWarnings(os.Environ()) {
			quietpipe.Print(w)
		}
	})
	out := os.Getenv(EnvOut)
	if out == "" && !recentOn(os.Environ()) {
		return nil, false, nil
	}
	if out != "" {
		opts = append(opts, WithPath(out))
	} else {
		opts = append(opts, WithNoFile())
	}
	if s := os.Getenv(EnvMode); s != "" {
		m, err := sampler.ParseMode(s)
		if err != nil {
			return nil, true, fmt.Errorf("profiler: %s=%q: %w", EnvMode, s, err)
		}
		opts = append(opts, WithMode(m))
	}
	if s := os.Getenv(EnvRate); s != "" {
		hz, err := strconv.Atoi(s)
		if err != nil {
			return nil, true, fmt.Errorf("profiler: %s=%q: %w", EnvRate, s, err)
		}
		o, err := envOption(EnvRate, s, WithRate(hz))
		if err != nil {
			return nil, true, err
		}
		opts = append(opts, o)
	}
	if out != "" {
		seg, err := envSegments()
		if err != nil {
			return nil, true, err
		}
		opts = append(opts, seg...)
	}
	rec, err := envRecent()
	if err != nil {
		return nil, true, err
	}
	return append(opts, rec...), true, nil
}

// envRecent returns the options of PROFILE_RECENT, PROFILE_RECENT_BYTES,
// PROFILE_RECENT_SIGNAL, PROFILE_CAPTURE_DIR and PROFILE_CAPTURE_PERIOD.
func envRecent() ([]Option, error) {
	var opts []Option
	s, sb := os.Getenv(EnvRecent), os.Getenv(EnvRecentBytes)
	if s != "" || sb != "" {
		d, n := DefaultRecent, int64(0)
		if s == "off" {
			d = 0
		} else if s != "" {
			var err error
			if d, err = time.ParseDuration(s); err != nil {
				return nil, fmt.Errorf("profiler: %s=%q: %w", EnvRecent, s, err)
			}
		}
		if sb != "" {
			var err error
			if n, err = parseSize(sb); err != nil {
				return nil, fmt.Errorf("profiler: %s=%q: %w", EnvRecentBytes, sb, err)
			}
		}
		name, v := EnvRecent, s
		if s == "" {
			name, v = EnvRecentBytes, sb
		}
		o, err := envOption(name, v, WithRecent(d, n))
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	if s := os.Getenv(EnvRecentSignal); s != "" {
		sig, err := parseSignal(s)
		if err != nil {
			return nil, fmt.Errorf("profiler: %s=%q: %w", EnvRecentSignal, s, err)
		}
		if sig != nil {
			opts = append(opts, WithRecentSignal(sig), func(c *config) error {
				c.signalByEnv = true
				return nil
			})
		}
	}
	if s := os.Getenv(EnvCaptureDir); s != "" {
		opts = append(opts, WithCaptureDir(s))
	}
	if s := os.Getenv(EnvCapturePeriod); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("profiler: %s=%q: %w", EnvCapturePeriod, s, err)
		}
		o, err := envOption(EnvCapturePeriod, s, WithCapturePeriod(d))
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	return opts, nil
}

// envSegments returns the options of PROFILE_CHECKPOINT, PROFILE_SEGMENT,
// PROFILE_KEEP and PROFILE_KEEP_BYTES.
func envSegments() ([]Option, error) {
	var opts []Option
	if s := os.Getenv(EnvCheckpoint); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("profiler: %s=%q: %w", EnvCheckpoint, s, err)
		}
		o, err := envOption(EnvCheckpoint, s, WithCheckpoint(d))
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	if s := os.Getenv(EnvSegment); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("profiler: %s=%q: %w", EnvSegment, s, err)
		}
		o, err := envOption(EnvSegment, s, WithSegment(d))
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	files, bytes := 0, int64(0)
	if s := os.Getenv(EnvKeep); s != "" {
		n, err := strconv.Atoi(s)
		if err == nil && n < 0 {
			err = errors.New("a negative count of files")
		}
		if err != nil {
			return nil, fmt.Errorf("profiler: %s=%q: %w", EnvKeep, s, err)
		}
		files = n
	}
	if s := os.Getenv(EnvKeepBytes); s != "" {
		n, err := parseSize(s)
		if err != nil {
			return nil, fmt.Errorf("profiler: %s=%q: %w", EnvKeepBytes, s, err)
		}
		bytes = n
	}
	if files != 0 || bytes != 0 {
		opts = append(opts, WithKeep(files, bytes))
	}
	return opts, nil
}

// parseSize reads a byte count: digits, then optionally K, M, G or T
// (powers of 1024), alone or followed by "B" or "iB", in any case.
func parseSize(s string) (int64, error) {
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToUpper(strings.TrimSpace(s[len(num):]))
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, err
	}
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")
	shift := strings.Index("KMGT", unit) + 1
	if unit == "" {
		shift = 0
	} else if len(unit) != 1 || shift == 0 {
		return 0, fmt.Errorf("unknown unit %q (want K, M, G or T)", s[len(num):])
	}
	if n < 0 {
		return 0, fmt.Errorf("%s is negative", s)
	}
	if n > math.MaxInt64>>(10*shift) {
		return 0, fmt.Errorf("%s is too large", s)
	}
	return n << (10 * shift), nil
}

// envOption checks o, the option of the variable name's value, at once, so
// that a value out of the option's range is reported under the variable's
// name, as a malformed one is.
func envOption(name, value string, o Option) (Option, error) {
	c := defaultConfig()
	if err := o(&c); err != nil {
		return nil, fmt.Errorf("profiler: %s=%q: %s", name, value, strings.TrimPrefix(err.Error(), "profiler: "))
	}
	return o, nil
}

package profiler

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gotachyon/profiler/sampler"
)

// Environment variables read by EnvOptions (and so by package auto and
// RunTests).
const (
	EnvOut  = "PROFILE_OUT"  // output path; profiling is off when unset or empty
	EnvMode = "PROFILE_MODE" // "wall" (default) or "cpu"
	EnvRate = "PROFILE_RATE" // sampling rate in Hz (default 100)
)

// EnvOptions returns the options described by the environment: WithPath from
// PROFILE_OUT, WithMode from PROFILE_MODE and WithRate from PROFILE_RATE.
// In a test binary run with -test.trace (go test -trace FILE) it adds
// WithBackend(sampler.Snapshot): the runtime has one execution tracer, and
// the test's own trace keeps it. ok is false when PROFILE_OUT is unset or empty (profiling is not wanted);
// err reports a malformed PROFILE_MODE or PROFILE_RATE.
func EnvOptions() (opts []Option, ok bool, err error) {
	out := os.Getenv(EnvOut)
	if out == "" {
		return nil, false, nil
	}
	opts = append(opts, WithPath(out))
	if testTrace(os.Args[1:]) {
		opts = append(opts, WithBackend(sampler.Snapshot))
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
		opts = append(opts, WithRate(hz))
	}
	return opts, true, nil
}

// M is what RunTests needs of *testing.M.
type M interface{ Run() int }

// RunTests runs the tests of m, profiled when PROFILE_OUT is set (see
// EnvOptions), and returns the exit code for os.Exit. It is the one-liner for
// a package's TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(profiler.RunTests(m)) }
//
// after which
//
//	PROFILE_OUT=p.bin go test -run TestX ./pkg
//
// writes a profile of that test run to pkg's directory (go test runs the
// binary there; use an absolute path to put it elsewhere). A failure to
// profile is printed and turns a passing run into exit code 1. Options given
// here are applied after the environment's.
func RunTests(m M, opts ...Option) int {
	envOpts, ok, err := EnvOptions()
	if !ok {
		return m.Run()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	p := Start(append(envOpts, opts...)...)
	if p.Err() != nil {
		return 1 // already logged
	}
	code := m.Run()
	if err := p.Stop(); err != nil && code == 0 {
		code = 1
	}
	return code
}

// testTrace reports whether args, a test binary's, ask it to write an
// execution trace: -test.trace=FILE or -test.trace FILE, with one or two
// dashes, as go test passes them.
func testTrace(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name != "test.trace" || !strings.HasPrefix(a, "-") {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		return value != ""
	}
	return false
}

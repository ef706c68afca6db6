package profiler

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gotachyon/profiler/internal/quietpipe"
)

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
//	PROFILE_OUT=$PWD/prof/ go test -count=1 ./...
//
// writes one profile per package into the directory prof (-count=1
// matters: a cached run runs no test, and writes no profile).
//
// go test runs the test binaries of several packages one after another or
// at once, each in its package's directory, and none knows of the others;
// so each names its profile after its package, PKG, the package's import
// path within its module with "_" for "/" ("upload_auto"; the module's
// last element for its root package, the whole import path for a package
// of another module):
//
//	PROFILE_OUT                     the package's profile
//	dir/, or an existing directory  dir/PKG.bin (dir is created if missing)
//	p.bin                           p.PKG.bin
//	dir, with PROFILE_SEGMENT       dir/PKG/, a directory of segments
//
// A relative PROFILE_OUT is relative to the package's directory, where go
// test runs the binary. Where the profile goes is logged at start and at
// the end, on stderr, which go test shows with -v or -json, for a package
// that fails, and when run in a package's directory without package
// arguments; otherwise it prints one "ok" line per package, and the names
// are as above.
//
// The test binary's own profiles stay whole and as they would be without
// the profiler. With go test -cpuprofile, the CPU profiler, of which a
// process has one, is left to the testing package, which starts it just
// after RunTests starts the profile, and the profile's CPU samples come
// from it, at pprof's 100 Hz whatever PROFILE_RATE says (the log says
// so). With go test -trace, the sampler reads the execution trace through
// the runtime's flight-recorder slot and leaves trace.Start's to the
// testing package (unless the binary already runs thousands of goroutines
// when TestMain starts: see package sampler's "Sharing the tracer").
//
// A failure to profile (a bad variable, an output path that cannot be
// written, a profile that failed at Stop) is printed, and the tests run
// and exit as they would without the profiler: profiling never fails
// them. The profile holds the process's CPU profiler and its one profile
// while the tests run, as go test -cpuprofile holds the first: a test
// that starts either of its own fails under PROFILE_OUT. Give such a
// package WithWallCPUSamples(false), which leaves the CPU profiler to the
// tests. Options given here are applied after the environment's, and so
// after the name above.
func RunTests(m M, opts ...Option) int {
	envOpts, ok, err := EnvOptions()
	if !ok || os.Getenv(EnvOut) == "" { // a window alone has no test to serve
		return m.Run()
	}
	if err != nil {
		fmt.Fprintln(quietpipe.Stderr, err)
		return m.Run()
	}
	envOpts = append(envOpts, testOptions(os.Args[1:])...)
	p := Start(append(envOpts, opts...)...) // a failure is logged
	code := m.Run()
	p.Stop() // a failure is logged
	return code
}

// testAwaitCPU is how long a test binary run with -test.cpuprofile leaves
// the CPU profiler to the testing package, which starts it a few
// microseconds after RunTests starts the profile.
const testAwaitCPU = time.Second

// testOptions returns the options of a test binary run with args: its
// profile's name, and the CPU profiler left to the testing package under
// -test.cpuprofile.
func testOptions(args []string) []Option {
	name := testPath(os.Getenv(EnvOut), os.Getenv(EnvSegment) != "", testPackage())
	if strings.HasSuffix(os.Getenv(EnvOut), "/") && os.Getenv(EnvSegment) == "" {
		os.MkdirAll(filepath.Dir(name), 0o755) // a failure is Start's to report
	}
	opts := []Option{WithPath(name)}
	if testFlag(args, "test.cpuprofile") != "" {
		opts = append(opts, func(c *config) error { c.awaitCPU = testAwaitCPU; return nil })
	}
	return opts
}

// testPath returns the profile's path in the test binary of package pkg
// for PROFILE_OUT out (see RunTests).
func testPath(out string, segmented bool, pkg string) string {
	if segmented {
		return filepath.Join(out, pkg)
	}
	if strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)) {
		return filepath.Join(out, pkg+".bin")
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return filepath.Join(out, pkg+".bin")
	}
	dir, base := filepath.Split(out)
	ext := filepath.Ext(base)
	return dir + strings.TrimSuffix(base, ext) + "." + pkg + ext
}

// testPackage returns the name of the package this test binary tests
// (see RunTests), from its build information, or else from the binary's
// name ("pkg.test").
func testPackage() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if name := packageName(bi.Path, bi.Main.Path); name != "" {
			return name
		}
	}
	base := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	return strings.TrimSuffix(base, ".test")
}

// packageName returns the name RunTests gives the profile of the test
// binary binPath ("example.com/m/a/b.test") in module mod
// ("example.com/m"): "a_b".
func packageName(binPath, mod string) string {
	ip := strings.TrimSuffix(binPath, ".test")
	switch {
	case ip == "":
		return ""
	case ip == mod:
		ip = path.Base(mod)
	case mod != "" && strings.HasPrefix(ip, mod+"/"):
		ip = ip[len(mod)+1:]
	}
	return strings.ReplaceAll(ip, "/", "_")
}

// testFlag returns the value of the test binary's flag name in args
// ("test.trace" for -test.trace=FILE or -test.trace FILE, with one or two
// dashes, as go test passes them), or "".
func testFlag(args []string, name string) string {
	for i, a := range args {
		if a == "--" {
			return ""
		}
		n, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if n != name || !strings.HasPrefix(a, "-") {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		return value
	}
	return ""
}

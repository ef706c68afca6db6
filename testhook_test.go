package profiler

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
)

// hookPkg is the name RunTests gives testdata/hooktest's profile.
const hookPkg = "testdata_hooktest"

// goTestHook runs "go test -count=1 args... pkgs" on the hook's test
// packages with env added, the test binary kept in a temporary directory
// (go test -cpuprofile would leave it in the working directory), and
// returns its output and error.
func goTestHook(t *testing.T, env []string, args ...string) ([]byte, error) {
	t.Helper()
	goTool := testutil.Tool(t, "go")
	cmd := exec.Command(goTool, append([]string{"test", "-count=1"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return cmd.CombinedOutput()
}

// TestRunTestsHook runs "go test" on testdata/hooktest with PROFILE_OUT.
func TestRunTestsHook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := t.TempDir()
	b, err := goTestHook(t, []string{EnvOut + "=" + filepath.Join(dir, "hook.bin"), EnvMode + "=cpu", EnvRate + "=250"}, "-run", "TestSpin", "./testdata/hooktest")
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, b)
	}
	out := filepath.Join(dir, "hook."+hookPkg+".bin")
	if n := proftest.Validate(t, out); n == 0 {
		t.Error("no samples in the test run's profile")
	}
	f, _ := reader.Open(out)
	defer f.Close()
	if f.Header.Interval != 4000 {
		t.Errorf("interval %d, want 4000 (PROFILE_RATE=250)", f.Header.Interval)
	}
}

// TestRunTestsHookPerPackage runs "go test" on two packages with one
// PROFILE_OUT, a file and then a directory: each package's profile is
// named after it, and none overwrites the other's.
func TestRunTestsHookPerPackage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ out, a, b string }{
		{filepath.Join(dir, "both.bin"), "both." + hookPkg + ".bin", "both." + hookPkg + "_other.bin"},
		{filepath.Join(dir, "new") + "/", "new/" + hookPkg + ".bin", "new/" + hookPkg + "_other.bin"},
	} {
		b, err := goTestHook(t, []string{EnvOut + "=" + c.out}, "-v", "./testdata/hooktest", "./testdata/hooktest/other")
		if err != nil {
			t.Fatalf("PROFILE_OUT=%s go test: %v\n%s", c.out, err, b)
		}
		for _, name := range []string{c.a, c.b} {
			path := filepath.Join(dir, name)
			if n := proftest.Validate(t, path); n == 0 {
				t.Errorf("PROFILE_OUT=%s: no samples in %s", c.out, name)
			}
			if !bytes.Contains(b, []byte("profiler: wrote "+path)) {
				t.Errorf("PROFILE_OUT=%s: the test binary did not say it wrote %s:\n%s", c.out, path, b)
			}
		}
	}
}

// TestRunTestsHookNeverFails runs "go test" with a PROFILE_OUT that is a
// directory (the profile goes into it), one that cannot be written, and a
// malformed variable: the tests run and pass all the same, and the
// profiler says what it did.
func TestRunTestsHookNeverFails(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, env := range [][]string{
		{EnvOut + "=" + dir},
		{EnvOut + "=" + blocker + "/sub/"},
		{EnvOut + "=" + filepath.Join(dir, "p.bin"), EnvRate + "=fast"},
	} {
		b, err := goTestHook(t, env, "-v", "-run", "TestSpin", "./testdata/hooktest")
		if err != nil || !bytes.Contains(b, []byte("--- PASS: TestSpin")) || !bytes.Contains(b, []byte("profiler: ")) {
			t.Errorf("%v: go test: %v\n%s", env, err, b)
		}
	}
	if n := proftest.Validate(t, filepath.Join(dir, hookPkg+".bin")); n == 0 {
		t.Errorf("PROFILE_OUT=%s: no samples in %s.bin", dir, hookPkg)
	}
}

// TestRunTestsHookKeepsTestTrace runs "go test -trace" with PROFILE_OUT:
// the hook reads the trace through the flight recorder's slot, and both
// the test's execution trace and the profile are whole.
func TestRunTestsHookKeepsTestTrace(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "test.trace")
	b, err := goTestHook(t, []string{EnvOut + "=" + filepath.Join(dir, "hook.bin")}, "-v", "-trace", tr, "-run", "TestSpin", "./testdata/hooktest")
	if err != nil || bytes.Contains(b, []byte("can't start tracing")) {
		t.Fatalf("go test -trace: %v\n%s", err, b)
	}
	if !bytes.Contains(b, []byte("backend trace")) {
		t.Errorf("the profile did not read the trace:\n%s", b)
	}
	if n := proftest.Validate(t, filepath.Join(dir, "hook."+hookPkg+".bin")); n == 0 {
		t.Error("no samples in the test run's profile")
	}
	checkTestTrace(t, tr)
}

// TestRunTestsHookKeepsTestProfiles runs "go test -cpuprofile", with and
// without -trace, with PROFILE_OUT: the testing package's CPU profile and
// trace are whole, and the profile's CPU samples come from that CPU
// profile.
func TestRunTestsHookKeepsTestProfiles(t *testing.T) {
	for _, withTrace := range []bool{false, true} {
		dir := t.TempDir()
		cpu, tr := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "trace.out")
		args := []string{"-v", "-o", filepath.Join(dir, "hooktest.test"), "-cpuprofile", cpu, "-run", "TestSpin", "./testdata/hooktest"}
		if withTrace {
			args = append(args, "-trace", tr)
		}
		b, err := goTestHook(t, []string{EnvOut + "=" + filepath.Join(dir, "hook.bin"), EnvMode + "=cpu"}, args...)
		if err != nil || bytes.Contains(b, []byte("can't start")) {
			t.Fatalf("go test %q: %v\n%s", args, err, b)
		}
		checkTestCPUProfile(t, cpu)
		if withTrace {
			checkTestTrace(t, tr)
		}
		if !bytes.Contains(b, []byte("shared the application's CPU profile")) {
			t.Errorf("go test %q: the profile did not share the test's CPU profile:\n%s", args, b)
		}
		if n := proftest.Validate(t, filepath.Join(dir, "hook."+hookPkg+".bin")); n == 0 {
			t.Errorf("go test %q: no samples in the test run's profile", args)
		}
	}
}

// checkTestCPUProfile checks that the CPU profile at path is whole and
// has samples of hooktest's spin.
func checkTestCPUProfile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("the test's CPU profile: %v", err)
	}
	spin := false
	for _, s := range p.Sample {
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				spin = spin || strings.HasSuffix(l.Function.Name, "hooktest.spin")
			}
		}
	}
	if len(p.Sample) == 0 || !spin {
		t.Errorf("the test's CPU profile has %d samples, spin among them: %v", len(p.Sample), spin)
	}
}

// checkTestTrace checks that the execution trace at path is whole.
func checkTestTrace(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	events, err := traceEvents(data)
	if err != nil || events == 0 {
		t.Errorf("the test's trace: %d events, %v", events, err)
	}
}

func TestTestPath(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		out       string
		segmented bool
		want      string
	}{
		{"p.bin", false, "p.pkg_a.bin"},
		{"/x/p.bin", false, "/x/p.pkg_a.bin"},
		{"/x/p", false, "/x/p.pkg_a"},
		{"/x/prof/", false, "/x/prof/pkg_a.bin"},
		{dir, false, filepath.Join(dir, "pkg_a.bin")},
		{"/x/segs", true, "/x/segs/pkg_a"},
	} {
		if got := testPath(c.out, c.segmented, "pkg_a"); got != c.want {
			t.Errorf("testPath(%q, %v) = %q, want %q", c.out, c.segmented, got, c.want)
		}
	}
}

func TestPackageName(t *testing.T) {
	for _, c := range []struct{ bin, mod, want string }{
		{"example.com/m/a/b.test", "example.com/m", "a_b"},
		{"example.com/m.test", "example.com/m", "m"},
		{"golang.org/x/sync/semaphore.test", "golang.org/x/sync", "semaphore"},
		{"example.com/other/c.test", "example.com/m", "example.com_other_c"},
		{"command-line-arguments.test", "", "command-line-arguments"},
		{"", "example.com/m", ""},
	} {
		if got := packageName(c.bin, c.mod); got != c.want {
			t.Errorf("packageName(%q, %q) = %q, want %q", c.bin, c.mod, got, c.want)
		}
	}
}

func TestTestFlag(t *testing.T) {
	for args, want := range map[string]string{
		"-test.trace=t.out":                 "t.out",
		"--test.trace=t.out":                "t.out",
		"-test.run X -test.trace t.out":     "t.out",
		"-test.trace=":                      "",
		"-test.run X":                       "",
		"-test.run test.trace":              "",
		"-- -test.trace=t.out":              "",
		"-test.v -test.tracefile=t.out":     "",
		"-test.count=1 -test.trace=/a/b.tr": "/a/b.tr",
	} {
		if got := testFlag(strings.Fields(args), "test.trace"); got != want {
			t.Errorf("testFlag(%q, test.trace) = %q, want %q", args, got, want)
		}
	}
}

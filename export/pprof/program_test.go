package pprof

import (
	"testing"

	"github.com/gotachyon/profiler/tachyon"
)

// TestProgramName checks the main mapping's name: go tool pprof's "File:".
func TestProgramName(t *testing.T) {
	var (
		testMain = tachyon.Frame{File: "/tmp/go-build1/b001/_testmain.go", Func: "main.main", Line: 60}
		tRunner  = tachyon.Frame{File: "/go/src/testing/testing.go", Func: "testing.tRunner", Line: 1792}
		testX    = tachyon.Frame{File: "/src/m/pkg/x_test.go", Func: "example.com/m/pkg.TestX", Line: 9}
		loop     = tachyon.Frame{File: "/src/m/worker/loop.go", Func: "example.com/m/worker.(*Pool).loop", Line: 40}
		goexit   = tachyon.Frame{File: "/go/src/runtime/asm_amd64.s", Func: "runtime.goexit", Line: 1700}
		park     = tachyon.Frame{File: "/go/src/runtime/proc.go", Func: "runtime.gopark", Line: 460}
	)
	for _, c := range []struct {
		name    string
		samples []sample
		want    string
	}{
		{"main.main's directory", goSamples(), "app"},
		{"busiest user package", []sample{
			{1, 1000, running, []tachyon.Frame{loop, goexit}},
			{2, 1000, running, []tachyon.Frame{fWork, fMain}},
			{3, 1000, 0, []tachyon.Frame{park, loop, goexit}},
		}, "app"}, // main.main wins over the busier worker package
		{"no main.main", []sample{
			{1, 1000, running, []tachyon.Frame{loop, goexit}},
			{2, 1000, 0, []tachyon.Frame{park}},
		}, "worker"},
		{"test binary", []sample{
			{1, 1000, 0, []tachyon.Frame{park, testMain}},
			{2, 1000, running, []tachyon.Frame{testX, tRunner, goexit}},
			{3, 1000, running, []tachyon.Frame{testX, tRunner, goexit}},
		}, "pkg.test"},
		{"main.main in a file at the root", []sample{
			{1, 1000, running, []tachyon.Frame{loop, {File: "/main.go", Func: "main.main", Line: 3}}},
		}, "main"}, // no directory to name it after, and no test binary
		{"runtime only", []sample{{1, 1000, 0, []tachyon.Frame{park, goexit}}}, "unknown"},
	} {
		p := roundTrip(t, writeProfile(t, c.samples), Options{})
		if got := p.Mapping[0].File; got != c.want {
			t.Errorf("%s: mapping %q, want %q", c.name, got, c.want)
		}
	}
}

package sampler

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// leakDump is a goroutine leak profile at debug=2, as Go 1.27 writes it.
const leakDump = `goroutine 1 [running]:
main.main()
	/tmp/glk/main.go:30 +0x1e5

goroutine 19 [chan send (leaked)]:
main.leak.func1()
	/tmp/glk/main.go:13 +0x1e
created by main.leak in goroutine 1
	/tmp/glk/main.go:13 +0x67

goroutine 22 [chan receive]:
main.main.func1()
	/tmp/glk/main.go:27 +0x19
created by main.main in goroutine 1
	/tmp/glk/main.go:27 +0x14f

goroutine 23 [select (no cases) (leaked), 2 minutes]:
main.forever()
	/tmp/glk/f.go:3 +0x10
`

func TestParseLeaked(t *testing.T) {
	got := parseLeaked([]byte(leakDump), nil)
	want := []leakedG{{19, "main.leak main.go:13"}, {23, ""}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestLeakProfileRuns checks Config.LeakProfile against this Go: where
// the runtime has the goroutine leak profile, one is taken at Stop (and
// marks nothing, as nothing here leaks; the leaking program is
// cmd/tachyon's TestLeaksNamesTheLeak, in a process of its own); where it
// has not, Stop's stats say so and sampling goes on.
func TestLeakProfileRuns(t *testing.T) {
	sink := newMemSink()
	s, err := Start(Config{Mode: Wall, Rate: 100, Backend: Trace, LeakProfile: time.Hour}, sink)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if st.Samples == 0 {
		t.Fatal("no samples")
	}
	if LeakProfileAvailable() {
		if st.LeakProfiles+st.LeakRefused != 1 || st.LeakMarked != 0 || st.LeakProfile != "" {
			t.Errorf("with the leak profile: %d taken, %d refused, %d marked, note %q; want one at Stop, nothing marked", st.LeakProfiles, st.LeakRefused, st.LeakMarked, st.LeakProfile)
		}
	} else if st.LeakProfiles != 0 || !strings.Contains(st.LeakProfile, "unavailable") {
		t.Errorf("without the leak profile: %d taken, note %q", st.LeakProfiles, st.LeakProfile)
	}
	t.Logf("available %v: %+v", LeakProfileAvailable(), st)
}

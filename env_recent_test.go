package profiler

import (
	"testing"
	"time"
)

// TestEnvRecent reads the recent window's variables: alone, PROFILE_RECENT
// profiles into memory only; a malformed one is an error; and the
// variables a profile takes do not warn beside it.
func TestEnvRecent(t *testing.T) {
	t.Setenv(EnvOut, "")
	t.Setenv(EnvRecent, "45s")
	t.Setenv(EnvRecentBytes, "8M")
	t.Setenv(EnvRecentSignal, "usr2")
	t.Setenv(EnvCaptureDir, "/tmp/caps")
	t.Setenv(EnvCapturePeriod, "10s")
	opts, ok, err := EnvOptions()
	if !ok || err != nil {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	c := defaultConfig()
	for _, o := range opts {
		if err := o(&c); err != nil {
			t.Fatal(err)
		}
	}
	if !c.noFile || c.recent != 45*time.Second || c.recentBytes != 8<<20 || c.recentSignal == nil ||
		c.captureDir != "/tmp/caps" || c.capturePeriod != 10*time.Second {
		t.Errorf("config %+v", c)
	}
	for _, bad := range [][2]string{{EnvRecent, "soon"}, {EnvRecentBytes, "8Q"}, {EnvRecentSignal, "INT"}, {EnvCapturePeriod, "x"}} {
		t.Run(bad[0], func(t *testing.T) {
			t.Setenv(bad[0], bad[1])
			if _, _, err := EnvOptions(); err == nil {
				t.Errorf("%s=%s: no error", bad[0], bad[1])
			}
		})
	}
	t.Setenv(EnvRecent, "off")
	t.Setenv(EnvRecentSignal, "")
	if _, ok, _ := EnvOptions(); ok {
		t.Error("PROFILE_RECENT=off without PROFILE_OUT: on")
	}
	for _, off := range []string{"0", "0s"} {
		t.Setenv(EnvRecent, off)
		if opts, ok, err := EnvOptions(); ok || err != nil {
			t.Errorf("PROFILE_RECENT=%s (WithRecent's off) without PROFILE_OUT: on with %d options, err %v", off, len(opts), err)
		}
	}
	if w := envWarnings([]string{"PROFILE_RECENT=60s", "PROFILE_MODE=cpu", "PROFILE_RATE=50"}); len(w) != 0 {
		t.Errorf("warnings beside PROFILE_RECENT: %q", w)
	}
	if w := envWarnings([]string{"PROFILE_RECENT=off", "PROFILE_MODE=cpu"}); len(w) != 1 {
		t.Errorf("PROFILE_MODE with PROFILE_RECENT=off and no PROFILE_OUT: %q", w)
	}
	if w := envWarnings([]string{"PROFILE_OUT=x", "PROFILE_RECNET=60s"}); len(w) != 1 {
		t.Errorf("a misspelt PROFILE_RECENT: %q", w)
	}
}

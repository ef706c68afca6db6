package profiler

import (
	"bytes"
	"log"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestEnvWarnings(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want []string
	}{
		{[]string{"PROFILE_OUT=p.bin", "PROFILE_SEGEMENT=5s"}, []string{"PROFILE_SEGEMENT is not a variable of the profiler: it has no effect; did you mean PROFILE_SEGMENT?"}},
		{[]string{"PROFILE_OUT=p.bin", "PROFILE_KEEP_BYTES=1G"}, []string{"PROFILE_KEEP_BYTES has no effect without PROFILE_SEGMENT"}},
		{[]string{"PROFILE_OUT=d", "PROFILE_SEGMENT=5s", "PROFILE_CHECKPOINT=2s"}, []string{"PROFILE_CHECKPOINT has no effect with PROFILE_SEGMENT"}},
		{[]string{"PROFILE_OTU=p.bin", "PROFILE_MODE=cpu"}, []string{"PROFILE_MODE has no effect without PROFILE_OUT", "PROFILE_OTU is not a variable of the profiler: it has no effect; did you mean PROFILE_OUT?"}},
		{[]string{"PROFILE_OUTPUT=p.bin"}, []string{"did you mean PROFILE_OUT?"}},
		{[]string{"PROFILE_OUT=p", "PROFILE_UPLAOD=http://x", "PROFILE_SERVICE=s"}, []string{"PROFILE_SERVICE has no effect without PROFILE_UPLOAD", "did you mean PROFILE_UPLOAD?"}},
		{[]string{"PROFILE_OUT=p", "PROFILE_FILE=x"}, []string{"PROFILE_FILE is not a variable of the profiler: it has no effect (the profiler reads PROFILE_OUT, PROFILE_MODE,"}},
		{[]string{"PROFILE_OUT=p", "PROFILE_SEGMENT=5s", "PROFILE_KEEP=3", "PROFILE_KEEP_BYTES=1G", "PROFILE_SIGNALS=on", "PROFILE_UPLOAD=http://x", "PROFILE_SERVICE=s", "PROFILE_LABELS=a=b", "PROFILE_MODE=cpu", "PROFILE_RATE=99", "HOME=/", "PROFILE_X="}, nil},
		{[]string{"PROFILE_OUT=p", "PROFILE_CHECKPOINT=2s"}, nil},
		{[]string{"PROFILE_OUT=p.bin", "PROFILE_RECENT_SIGNAL=USR1", "PROFILE_CAPTURE_DIR=c"}, []string{
			"PROFILE_CAPTURE_DIR has no effect without a recent window", "PROFILE_RECENT_SIGNAL has no effect without a recent window"}},
		{[]string{"PROFILE_OUT=d", "PROFILE_SEGMENT=5s", "PROFILE_RECENT=off", "PROFILE_CAPTURE_PERIOD=1m"}, []string{"PROFILE_CAPTURE_PERIOD has no effect without a recent window"}},
		{[]string{"PROFILE_RECENT_BYTES=16M"}, []string{"PROFILE_RECENT_BYTES has no effect without PROFILE_OUT"}},
		{[]string{"PROFILE_OUT=p.bin", "PROFILE_RECENT=off", "PROFILE_RECENT_BYTES=16M"}, []string{"PROFILE_RECENT_BYTES has no effect without a recent window"}},
		{[]string{"PROFILE_OUT=d", "PROFILE_SEGMENT=5s", "PROFILE_RECENT=0s", "PROFILE_RECENT_BYTES=16M"}, []string{"PROFILE_RECENT_BYTES has no effect without a recent window"}},
		{[]string{"PROFILE_OUT=d", "PROFILE_SEGMENT=5s", "PROFILE_RECENT_SIGNAL=USR1", "PROFILE_CAPTURE_DIR=c", "PROFILE_CAPTURE_PERIOD=1m"}, nil},
		{[]string{"PROFILE_OUT=p.bin", "PROFILE_RECENT_BYTES=16M", "PROFILE_RECENT_SIGNAL=USR1"}, nil},
		{[]string{"PROFILE_RECENT=60s", "PROFILE_RECENT_BYTES=16M", "PROFILE_RECENT_SIGNAL=USR1", "PROFILE_CAPTURE_DIR=c"}, nil},
		{[]string{"PROFILE_RECENT=60s", "PROFILE_SEGMENT=5s", "PROFILE_KEEP=3", "PROFILE_CHECKPOINT=1s", "PROFILE_MODE=cpu"}, []string{
			"PROFILE_CHECKPOINT has no effect without PROFILE_OUT", "PROFILE_KEEP has no effect without PROFILE_OUT", "PROFILE_SEGMENT has no effect without PROFILE_OUT"}},
	} {
		got := envWarnings(c.env)
		if len(got) != len(c.want) {
			t.Errorf("%q: got %q, want %d lines", c.env, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(got[i], "profiler: ") || !strings.Contains(got[i], w) {
				t.Errorf("%q: line %d is %q, want %q", c.env, i, got[i], w)
			}
		}
	}
}

// TestEnvOptionsWarnsOnce checks that EnvOptions logs the environment's
// warnings, once a process, with or without PROFILE_OUT.
func TestEnvOptionsWarnsOnce(t *testing.T) {
	var buf bytes.Buffer
	prev := log.Writer()
	log.SetOutput(&buf)
	defer log.SetOutput(prev)
	warnEnvOnce = sync.Once{}
	t.Setenv(EnvOut, "")
	t.Setenv("PROFILE_SEGEMENT", "5s")
	for range 2 {
		if _, ok, _ := EnvOptions(); ok {
			t.Fatal("EnvOptions is on without PROFILE_OUT")
		}
	}
	if n := strings.Count(buf.String(), "did you mean PROFILE_SEGMENT?"); n != 1 {
		t.Errorf("%d warnings about PROFILE_SEGEMENT, want 1:\n%s", n, buf.String())
	}
}

// TestEnvOutOfRange checks that a value that parses but that its option
// refuses is reported under the variable's name, as a malformed one is.
func TestEnvOutOfRange(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{EnvRate, "0", "out of range"},
		{EnvSegment, "1ms", "shorter than"},
		{EnvKeep, "-3", "negative"},
		{EnvKeepBytes, "-1", "negative"},
		{EnvRecent, "1ns", "at least"},
		{EnvRecentBytes, "-1", "negative"},
		{EnvCapturePeriod, "-1s", "positive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(EnvOut, "d")
			if c.name == EnvKeep || c.name == EnvKeepBytes {
				t.Setenv(EnvSegment, "5s")
			}
			t.Setenv(c.name, c.value)
			_, _, err := EnvOptions()
			prefix := "profiler: " + c.name + "=" + strconv.Quote(c.value) + ": "
			if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s=%s: error %v, want %q...%q", c.name, c.value, err, prefix, c.want)
			}
		})
	}
	t.Setenv(EnvOut, "d")
	t.Setenv(EnvCheckpoint, "0s")
	if _, _, err := EnvOptions(); err == nil || !strings.HasPrefix(err.Error(), `profiler: PROFILE_CHECKPOINT="0s": `) {
		t.Errorf("PROFILE_CHECKPOINT=0s: %v", err)
	}
}

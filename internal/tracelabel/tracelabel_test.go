package tracelabel

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/tachyon"
)

func TestRoundTrip(t *testing.T) {
	var msg []byte
	msg = Append(msg, "route", "/api/{id}")
	msg = Append(msg, "bad=key", "x")
	msg = Append(msg, "tenant", strings.Repeat("é", 200))
	got, ok := Parse(string(msg), nil)
	want := []tachyon.Label{{Key: "route", Value: "/api/{id}"}, {Key: "tenant", Value: strings.Repeat("é", 200)}}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse = %v, %v", got, ok)
	}
	if got, ok := Parse("", nil); !ok || len(got) != 0 {
		t.Fatalf("empty message: %v, %v", got, ok)
	}
}

func TestSize(t *testing.T) {
	for _, kv := range [][2]string{{"", ""}, {"k", "v"}, {strings.Repeat("k", 127), strings.Repeat("v", 128)}, {"a", strings.Repeat("v", 20000)}} {
		if got, want := Size(kv[0], kv[1]), len(Append(nil, kv[0], kv[1])); got != want {
			t.Errorf("Size(%d, %d bytes) = %d, Append adds %d", len(kv[0]), len(kv[1]), got, want)
		}
	}
}

func TestParseBad(t *testing.T) {
	keep := []tachyon.Label{{Key: "k", Value: "v"}}
	for _, msg := range []string{
		"\x05ab",    // key longer than the message
		"\x01a",     // no value
		"\x01a\x80", // value length cut
		"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", // varint too long
		strings.Repeat("\x00\x00", MaxLabels+1),        // too many
		strings.Repeat("x", MaxBytes+1),
	} {
		got, ok := Parse(msg, keep)
		if ok || !reflect.DeepEqual(got, keep) {
			t.Errorf("Parse(%q) = %v, %v", msg, got, ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(string(Append(Append(nil, "a", "b"), "c", "")))
	f.Add("\x01")
	f.Fuzz(func(t *testing.T, msg string) {
		got, ok := Parse(msg, nil)
		if !ok {
			return
		}
		var again []byte
		for _, l := range got {
			again = Append(again, l.Key, l.Value)
		}
		if back, ok := Parse(string(again), nil); !ok || !reflect.DeepEqual(back, got) {
			t.Fatalf("re-encoded %v parses as %v, %v", got, back, ok)
		}
	})
}

func TestEnabled(t *testing.T) {
	if Enabled() {
		t.Fatal("enabled at start")
	}
	Enable()
	Enable()
	Disable()
	if !Enabled() {
		t.Fatal("not enabled with one reader")
	}
	Disable()
	if Enabled() {
		t.Fatal("enabled with no reader")
	}
}

package goid

import "testing"

func TestParseHeader(t *testing.T) {
	for in, want := range map[string]uint64{"goroutine 7 [running]:": 7, "goroutine 123 [chan receive]:": 123} {
		if id, rest, ok := ParseHeader([]byte(in)); !ok || id != want || rest[0] != ' ' {
			t.Errorf("ParseHeader(%q) = %d, %q, %v", in, id, rest, ok)
		}
	}
	for _, in := range []string{"", "goroutine ", "goroutine x [", "gorout"} {
		if _, _, ok := ParseHeader([]byte(in)); ok {
			t.Errorf("ParseHeader(%q) accepted", in)
		}
	}
	if Current() == 0 {
		t.Error("Current() = 0")
	}
}

package tachyon

import "testing"

// TestLabelFrameUTF8: a label frame's name is UTF-8 whatever the label's
// bytes, so that a file carrying it reads.
func TestLabelFrameUTF8(t *testing.T) {
	f := LabelFrame(Label{Key: "k\xff", Value: "caf\xc3"})
	if f.Func != "k\uFFFD=caf\uFFFD" {
		t.Fatalf("label frame %q", f.Func)
	}
	l, ok := LabelOf(f)
	if !ok || l.Key != "k\uFFFD" || l.Value != "caf\uFFFD" {
		t.Fatalf("LabelOf = %+v, %v", l, ok)
	}
}

package tachyon

import (
	"reflect"
	"testing"
)

func TestLabelFrames(t *testing.T) {
	ls := []Label{{"route", "/api/items"}, {"method", "GET"}, {"bad=key", "x"}, {"", "y"}, {"method", "POST"}}
	got := LabelFrames(ls)
	want := []Frame{
		{File: LabelFile, Func: "route=/api/items"},
		{File: LabelFile, Func: "method=POST"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("LabelFrames = %v, want %v", got, want)
	}
	for _, fr := range got {
		l, ok := LabelOf(fr)
		if !ok || LabelFrame(l) != fr {
			t.Errorf("LabelOf(%v) = %v, %v", fr, l, ok)
		}
	}
}

func TestLabelOf(t *testing.T) {
	for _, c := range []struct {
		fr Frame
		ok bool
		l  Label
	}{
		{Frame{File: LabelFile, Func: "k=v=w"}, true, Label{"k", "v=w"}},
		{Frame{File: LabelFile, Func: "k="}, true, Label{"k", ""}},
		{Frame{File: LabelFile, Func: "=v"}, false, Label{}},
		{Frame{File: LabelFile, Func: "kv"}, false, Label{}},
		{Frame{File: LabelFile, Func: "k=v", Line: 3}, false, Label{}},
		{Frame{File: "main.go", Func: "k=v"}, false, Label{}},
	} {
		l, ok := LabelOf(c.fr)
		if ok != c.ok || l != c.l {
			t.Errorf("LabelOf(%+v) = %v, %v; want %v, %v", c.fr, l, ok, c.l, c.ok)
		}
		if IsLabel(c.fr) != c.ok || (ok && Synthetic(c.fr)) {
			t.Errorf("IsLabel/Synthetic of %+v", c.fr)
		}
	}
}

func TestSplitLabels(t *testing.T) {
	stack := []Frame{{Func: "f"}, {File: LabelFile, Func: "x=1"}, {Func: "main.main"}, {File: LabelFile, Func: "a=1"}, {File: LabelFile, Func: "b=2"}}
	n := SplitLabels(len(stack), func(i int) bool { return IsLabel(stack[i]) })
	if n != 3 {
		t.Fatalf("SplitLabels = %d, want 3", n)
	}
}

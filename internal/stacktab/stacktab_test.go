package stacktab

import "testing"

func TestTable(t *testing.T) {
	var tab Table
	a := []uint32{1, 2, 3}
	if tab.ID(a) != 0 || tab.ID([]uint32{1, 2}) != 1 || tab.ID([]uint32{1, 2, 3}) != 0 || tab.ID(nil) != 2 {
		t.Fatal("ids not dense in order of first appearance")
	}
	a[0] = 9 // the table keeps its own copy
	if got := tab.Stack(0); got[0] != 1 || tab.Len() != 3 {
		t.Fatalf("stack 0 = %v, len %d", got, tab.Len())
	}
	if n := testing.AllocsPerRun(100, func() { tab.ID([]uint32{1, 2}) }); n != 0 {
		t.Fatalf("%v allocs for a known stack", n)
	}
}

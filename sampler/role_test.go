package sampler

import "testing"

// TestRoleGuessCorrected: a goroutine first seen with a transition stack
// of runtime frames only is taken for the runtime's, until a complete
// stack shows its start function: a program's goroutine stopped inside
// the runtime is the program's again; a runtime goroutine stays the
// runtime's; a role a complete stack gave is never undone by a stack of
// runtime frames only.
func TestRoleGuessCorrected(t *testing.T) {
	tb := &traceBackend{}
	runtimeOnly := &stack{frames: []uint32{1}}
	complete := func(r role) *stack { return &stack{frames: []uint32{2}, evidence: true, start: r} }
	partial := &stack{frames: []uint32{3}, evidence: true} // start unknown: cut short

	g := &tgor{}
	tb.learnFromTransition(g, runtimeOnly, false)
	if g.role != roleRuntime {
		t.Fatalf("after runtime frames only: role %d, want the runtime's", g.role)
	}
	tb.learnFromTransition(g, partial, false)
	if g.role != roleRuntime {
		t.Fatalf("a stack that does not show the start function changed the guess to %d", g.role)
	}
	tb.learnFromTransition(g, complete(roleUser), false)
	if g.role != roleUser || g.has(fGuessed) {
		t.Fatalf("after a complete stack of the program's: role %d (guessed %v), want the program's", g.role, g.has(fGuessed))
	}
	tb.learnFromTransition(g, runtimeOnly, false)
	if g.role != roleUser {
		t.Fatalf("runtime frames only undid a known role: %d", g.role)
	}

	rt := &tgor{}
	tb.learnFromTransition(rt, runtimeOnly, false)
	tb.learnFromTransition(rt, complete(roleRuntime), false)
	if rt.role != roleRuntime || rt.has(fGuessed) {
		t.Fatalf("a runtime goroutine: role %d (guessed %v)", rt.role, rt.has(fGuessed))
	}
	tb.learnFromTransition(rt, complete(roleUser), false)
	if rt.role != roleRuntime {
		t.Fatal("a known role changed")
	}
}

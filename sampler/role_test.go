package sampler

import "testing"

// TestRoleGuessCorrected: a goroutine first seen with a transition stack
// of runtime frames only is taken for the runtime's, until a stack shows
// its start function or a frame of the program's: a program's goroutine
// stopped inside the runtime is the program's again, and never taken for
// the runtime's after; a runtime goroutine stays the runtime's; a role a
// complete stack gave is never undone by a stack of runtime frames only.
func TestRoleGuessCorrected(t *testing.T) {
	tb := &traceBackend{}
	runtimeOnly := &stack{frames: []uint32{1}}
	complete := func(r role) *stack { return &stack{frames: []uint32{2}, evidence: true, start: r} }
	exported := &stack{frames: []uint32{3}, evidence: true} // runtime.Gosched, say: no frame of the program's
	// The trace's stacks leave runtime.goexit out: the program's frames,
	// start unknown.
	program := &stack{frames: []uint32{4}, evidence: true, program: true}

	g := &tgor{}
	tb.learnFromTransition(g, runtimeOnly, false)
	if g.role != roleRuntime {
		t.Fatalf("after runtime frames only: role %d, want the runtime's", g.role)
	}
	tb.learnFromTransition(g, exported, false)
	if g.role != roleRuntime {
		t.Fatalf("a stack of exported runtime frames changed the guess to %d", g.role)
	}
	tb.learnFromTransition(g, program, false)
	if g.role != roleUnknown || g.has(fGuessed) {
		t.Fatalf("after a stack of the program's: role %d (guessed %v), want unknown, sampled as the program's", g.role, g.has(fGuessed))
	}
	tb.learnFromTransition(g, runtimeOnly, false)
	if g.role != roleUnknown {
		t.Fatalf("runtime frames only, after the program's, guessed role %d", g.role)
	}
	tb.learnFromTransition(g, complete(roleUser), false)
	if g.role != roleUser || g.has(fGuessed) {
		t.Fatalf("after a complete stack of the program's: role %d (guessed %v), want the program's", g.role, g.has(fGuessed))
	}
	tb.learnFromTransition(g, runtimeOnly, false)
	if g.role != roleUser {
		t.Fatalf("runtime frames only undid a known role: %d", g.role)
	}

	// A CPU sample with a frame of the program's ends the guess too.
	c := &tgor{}
	tb.learnFromTransition(c, runtimeOnly, false)
	tb.learn(c, program, false)
	if c.role != roleUnknown || c.has(fGuessed) {
		t.Fatalf("a CPU sample of the program's left role %d (guessed %v)", c.role, c.has(fGuessed))
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
	tb.learnFromTransition(rt, program, false)
	if rt.role != roleRuntime {
		t.Fatal("a stack of the program's changed a known role")
	}
}

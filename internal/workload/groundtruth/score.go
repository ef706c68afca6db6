package groundtruth

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// pkgPrefix is the prefix of the phase functions' names in a profile.
const pkgPrefix = "github.com/gotachyon/profiler/internal/workload/groundtruth."

// minCPUNanos is the CPU time after which a goroutine must appear in a CPU
// profile.
const minCPUNanos = 0.1e9

// other names the samples whose stack holds no phase function.
const other = "(other)"

// reasons is the wait-reason frame each waiting phase must show.
var reasons = map[string]string{
	"handlerRead":  "[IO wait]",
	"dutySleep":    "[sleep]",
	"sleeperSleep": "[sleep]",
	"chanWait":     "[chan receive]",
	"mutexWait":    "[sync.Mutex.Lock]",
	"poolWait":     "[select]",
}

// Pair is a share measured in the profile and the share the workload
// recorded.
type Pair struct{ Got, Want float64 }

// Err is the absolute difference, in percentage points.
func (p Pair) Err() float64 { return 100 * math.Abs(p.Got-p.Want) }

// Goroutine is one workload goroutine's score.
type Goroutine struct {
	Role    string
	ID      uint64
	Samples int
	// Presence (wall mode) is the share of the profile's ticks at which it
	// has a sample; AtEnds says it has one at the first and the last tick.
	Presence float64
	AtEnds   bool
	// Funcs are the shares of its samples by phase function, against its
	// share of time in each (wall mode), or of the time in its active
	// phases (CPU mode: it uses the CPU in those alone).
	Funcs map[string]Pair
	// States are the shares of its samples by state (wall mode), against
	// its share of time in each. A runnable sample in an active phase's
	// function (preempted) counts as active; one in a waiting phase's
	// function was woken and waits for a CPU, for a time that depends on
	// the machine's load and that no goroutine can measure of itself: it
	// is still in its waiting phase by the workload's own record (the
	// phase ends when it runs again), and counts as waiting; so does one
	// running there (woken; for a tick no CPU sample paid for, whose stack
	// is borrowed, the record says whether it was in a waiting phase).
	// Woken is their share (wall mode), bounded by
	// Limits.Woken. (Leaving them out of the samples but not of the record
	// made a duty cycle look 3-4 points less waiting on a loaded machine;
	// beside two CPU burners its running samples in the sleep's function
	// made it look 4 points more active.) In CPU mode a sample is a CPU
	// sample's proof that the goroutine was on a CPU, in a wait's function
	// too (on its way into or out of the wait), and its state is the one
	// the profile wrote.
	States map[State]Pair
	Woken  float64
	// ReasonOK is the share of its waiting samples, in a phase that waits
	// for a known reason, that show that reason's frame ("[IO wait]").
	ReasonOK float64
	// Agreement is the share of its samples naming the phase function it
	// was in at the sample's time: a sharper test than shares.
	Agreement float64
	// CutShort is the share of its samples whose stack the runtime could
	// not unwind (the race detector's calls): left out of every share, and
	// the moments they stand for out of the truth's.
	CutShort float64
	// Guessed is the share of its samples that are running ticks no CPU
	// sample paid for, whose stack the profiler borrowed from the nearest
	// CPU sample: left out of the function shares (not of the states),
	// and the moments they stand for out of their truth. GuessAgreement
	// is the share of them naming the phase the goroutine was in.
	Guessed, GuessAgreement float64
	// Other is the most frequent innermost frames of its samples in no
	// phase function.
	Other string
	// PerCPUSecond is its samples on CPU (in wall mode: its running ticks
	// that a CPU sample paid for) per second of its thread's CPU time
	// (goroutines locked to a thread).
	PerCPUSecond float64
	cpuSeconds   float64
}

// Report scores one profile.
type Report struct {
	CPU        bool // CPU mode: shares are of CPU time
	Ticks      int  // distinct sample times (wall mode)
	Window     time.Duration
	Goroutines []Goroutine
	Missing    []string // workload goroutines without a single sample
}

// gsample is a sample of a workload goroutine, resolved.
type gsample struct {
	ts       uint64
	state    State
	known    bool // state is one of the workload's
	runnable bool
	// cut: the runtime could not unwind the sample's stack (CPU mode
	// writes it with its innermost frame alone: racecall, under -race)
	cut bool
	// guessed: a running tick that no CPU sample paid for, at a stack the
	// profiler borrowed (under its "[no CPU sample]" frame)
	guessed bool
	fn      string // phase function, or other
	top     string // innermost frame's function
	where   string // other: its innermost frames, for the report
}

// woken reports whether s is of a goroutine between a wait and its
// record's next phase: active (runnable or running) in a waiting phase's
// function. Running there is the goroutine on its way into or out of the
// wait, a few microseconds on a quiet machine; on a loaded one the system
// may stop its thread there for milliseconds, which the Go scheduler (and
// so the trace) still counts as running. A running tick that no CPU
// sample paid for (guessed) says only that the goroutine held a P off the
// CPU, at a stack it borrowed from a CPU sample near in time: whether it
// was on its way out of a wait or in its active phase is not the
// profile's claim, and the record (l) tells which. Beside two CPU
// burners, a duty cycle's wake-ups borrowed the stack of the spin that
// followed and made it look 3-5 points more active.
func (s *gsample) woken(l *log) bool {
	if s.state != Active {
		return false
	}
	if s.guessed {
		ph := l.at(int64(s.ts) * 1000)
		return ph != nil && ph.state == Waiting
	}
	return reasons[s.fn] != ""
}

// Score reads f, a profile taken while w ran, and scores every goroutine of
// w. Call it after w.Stop.
func Score(f *reader.File, w *Workload) (*Report, error) {
	byID, ticks, cpu, err := collect(f, w)
	if err != nil {
		return nil, err
	}
	if len(ticks) == 0 {
		return nil, errors.New("groundtruth: the profile has no samples of the workload")
	}
	r := &Report{CPU: cpu}
	first, last := ticks[0], ticks[len(ticks)-1]
	r.Ticks = len(ticks)
	r.Window = time.Duration(last-first) * time.Microsecond
	half := int64(f.Header.Interval) * 1000 / 2
	from, to := int64(first)*1000-half, int64(last)*1000+half
	for _, l := range w.logs {
		ss, tr := byID[l.id], l.truth(from, to)
		switch {
		case len(ss) > 0:
			r.Goroutines = append(r.Goroutines, r.score(l, ss, tr, ticks))
		case !r.CPU || tr.cpu >= minCPUNanos:
			// A wall profile samples every goroutine; a CPU profile every
			// goroutine that used the CPU.
			r.Missing = append(r.Missing, fmt.Sprintf("%s (g%d)", l.role, l.id))
		}
	}
	return r, nil
}

// collect resolves the samples of w's goroutines, lists the distinct sample
// times of the file and says whether it is a CPU-mode profile (every sample
// on CPU).
func collect(f *reader.File, w *Workload) (byID map[uint64][]gsample, ticks []uint64, cpu bool, err error) {
	ids := map[uint64]bool{}
	for _, l := range w.logs {
		ids[l.id] = true
	}
	phaseOf := make([]string, len(f.FrameRefs()))
	noCPU := make([]bool, len(phaseOf))
	for i := range phaseOf {
		fn := f.Frame(uint32(i)).Func
		if fn, ok := strings.CutPrefix(fn, pkgPrefix); ok && isPhase(fn) {
			phaseOf[i] = fn
		}
		noCPU[i] = fn == tachyon.NoCPUSample
	}
	byID = map[uint64][]gsample{}
	times := map[uint64]bool{}
	cpu = true
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		times[s.Timestamp] = true
		cpu = cpu && s.Status.OnCPU()
		if !ids[s.ThreadID] {
			continue
		}
		g := gsample{ts: s.Timestamp, fn: other}
		g.state, g.known = stateOf(s.Status)
		g.runnable = s.Status.State() == tachyon.Runnable
		for _, fr := range s.Stack {
			g.guessed = g.guessed || noCPU[fr]
			if p := phaseOf[fr]; p != "" {
				g.fn = p
				break
			}
		}
		if g.fn == other {
			g.where = innermost(f, s.Stack, 3)
			// A workload goroutine's stack holds its phase, its loop and
			// its start function: one frame (besides "[no CPU sample]") is
			// a stack cut short.
			g.cut = len(s.Stack) == 1 || len(s.Stack) == 2 && g.guessed
		}
		if len(s.Stack) > 0 {
			g.top = f.Frame(s.Stack[0]).Func
		}
		byID[s.ThreadID] = append(byID[s.ThreadID], g)
	}
	if err := it.Err(); err != nil {
		return nil, nil, false, err
	}
	return byID, slices.Sorted(maps.Keys(times)), cpu, nil
}

// innermost names the n innermost frames of stack.
func innermost(f *reader.File, stack []uint32, n int) string {
	var names []string
	for _, fr := range stack[:min(n, len(stack))] {
		fn := f.Frame(fr).Func
		names = append(names, fn[strings.LastIndexByte(fn, '/')+1:])
	}
	return strings.Join(names, " < ")
}

// isPhase reports whether fn is one of the phase functions.
func isPhase(fn string) bool {
	switch fn {
	case "handlerRead", "handlerCompute", "handlerReply", "dutySleep", "dutySpin", "spinA", "spinB", "spinC",
		"sleeperSleep", "chanWait", "mutexWait", "syscallRead", "poolWait":
		return true
	}
	return false
}

// stateOf maps a status byte onto a phase's state: a goroutine running or
// waiting for a CPU is active.
func stateOf(st tachyon.Status) (State, bool) {
	switch st.State() {
	case tachyon.Syscall:
		return Syscall, true
	case tachyon.Unknown:
		return 0, false
	case tachyon.Running, tachyon.Runnable:
		return Active, true
	}
	return Waiting, true
}

// score compares one goroutine's samples with its truth.
func (r *Report) score(l *log, all []gsample, tr truth, ticks []uint64) Goroutine {
	g := Goroutine{Role: l.role, ID: l.id, Samples: len(all), Funcs: map[string]Pair{}, States: map[State]Pair{}}
	ss := make([]gsample, 0, len(all))
	for _, s := range all {
		if !s.cut {
			ss = append(ss, s)
		}
	}
	g.CutShort = 1 - float64(len(ss))/float64(len(all))
	n := float64(max(len(ss), 1))
	var waiting, reasonOK, agree, guessed, guessAgree, woken int
	nf := n // samples with evidence of their stack, for the function shares
	for _, s := range ss {
		if s.guessed {
			nf--
		}
	}
	nf = max(nf, 1)
	seen := map[uint64]bool{} // presence counts every sample
	for _, s := range all {
		seen[s.ts] = true
	}
	others := map[string]int{}
	for _, s := range ss {
		if s.where != "" {
			if others[s.where]++; others[s.where] > others[g.Other] {
				g.Other = s.where
			}
		}
		if s.guessed {
			guessed++
			if ph := l.at(int64(s.ts) * 1000); ph != nil && ph.fn == s.fn {
				guessAgree++
			}
		} else {
			p := g.Funcs[s.fn]
			p.Got += 1 / nf
			g.Funcs[s.fn] = p
		}
		if st := s.state; s.known {
			if !r.CPU && s.woken(l) {
				st = Waiting
				woken++
			}
			q := g.States[st]
			q.Got += 1 / n
			g.States[st] = q
		}
		if want := reasons[s.fn]; want != "" && s.known && s.state == Waiting {
			waiting++
			if s.top == want {
				reasonOK++
			}
		}
		if ph := l.at(int64(s.ts) * 1000); ph != nil && ph.fn == s.fn {
			agree++
		}
	}
	g.Woken = float64(woken) / n
	g.ReasonOK = 1
	if waiting > 0 {
		g.ReasonOK = float64(reasonOK) / float64(waiting)
	}
	g.Agreement = float64(agree) / n
	g.Guessed = float64(guessed) / n
	g.GuessAgreement = 1
	if guessed > 0 {
		g.GuessAgreement = float64(guessAgree) / float64(guessed)
	}
	g.Presence = float64(len(seen)) / float64(len(ticks))
	g.AtEnds = seen[ticks[0]] && seen[ticks[len(ticks)-1]]
	want, sum := tr.wall, tr.wallSum
	onCPU := float64(len(all)) // cut short or not
	if r.CPU {
		want, sum = tr.active, tr.activeSum
	} else {
		onCPU = 0
		for _, s := range all {
			if s.known && s.state == Active && !s.runnable {
				onCPU++
			}
		}
	}
	g.cpuSeconds = tr.cpu / 1e9
	if g.cpuSeconds > 0 {
		g.PerCPUSecond = onCPU / g.cpuSeconds
	}
	_, cutState, cut := cutShort(l, all, false)
	leftFn, _, left := cutShort(l, all, true)
	for fn, d := range want {
		p := g.Funcs[fn]
		p.Want = uncut(d/max(sum, 1), leftFn[fn], left, len(all))
		g.Funcs[fn] = p
	}
	if !r.CPU {
		for st, d := range tr.state {
			q := g.States[st]
			q.Want = uncut(d/max(tr.wallSum, 1), cutState[st], cut, len(all))
			g.States[st] = q
		}
	}
	return g
}

// cutShort counts the samples of all cut short, and with guessed the
// guessed ones too, by the phase function and state the goroutine's own
// record puts it in at their times.
func cutShort(l *log, all []gsample, guessed bool) (byFn map[string]int, byState map[State]int, n int) {
	byFn, byState = map[string]int{}, map[State]int{}
	for _, s := range all {
		if !s.cut && !(guessed && s.guessed) {
			continue
		}
		if ph := l.at(int64(s.ts) * 1000); ph != nil {
			byFn[ph.fn]++
			byState[ph.state]++
			n++
		}
	}
	return byFn, byState, n
}

// uncut turns a share of the truth into its share of the moments whose
// samples were not cut short. Cut samples are left out of the profile's
// shares, and they gather where the race detector's calls are (the
// handler's hashing): judged against the whole truth, that phase would look
// short by the share cut.
func uncut(share float64, cutHere, cut, samples int) float64 {
	if cut == 0 || cut >= samples {
		return share
	}
	n := float64(samples)
	return max(share-float64(cutHere)/n, 0) / (1 - float64(cut)/n)
}

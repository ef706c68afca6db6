package demo

import (
	"fmt"
	"io"
	"reflect"
	"runtime"
	"sort"

	"github.com/gotachyon/profiler/reader"
)

// Roles of the workload, named after the function that marks them.
var Roles = []string{"hotA", "hotB", "sleeper", "blockedOnChan", "waitPipe", "readSyscall", "idleWorker"}

var roleFuncs = map[string]string{} // full function name -> role

func init() {
	for role, fn := range map[string]any{
		"hotA": hotA, "hotB": hotB, "sleeper": sleeper, "blockedOnChan": blockedOnChan,
		"waitPipe": waitPipe, "readSyscall": readSyscall, "idleWorker": idleWorker,
	} {
		roleFuncs[runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()] = role
	}
}

// RoleStats counts one role's samples.
type RoleStats struct {
	Samples    int
	Goroutines int            // distinct goroutine ids
	States     map[string]int // samples per state name (tachyon.State)
}

// Share returns the fraction of the role's samples in state s.
func (r RoleStats) Share(s string) float64 {
	if r.Samples == 0 {
		return 0
	}
	return float64(r.States[s]) / float64(r.Samples)
}

// Summary is what a profile says about the workload.
type Summary struct {
	Samples    int // all samples in the file
	Goroutines int // distinct goroutine ids in the file
	Roles      map[string]*RoleStats
}

// Split returns hotA's share of the samples in hotA or hotB.
func (s Summary) Split() float64 {
	a, b := s.Roles["hotA"].Samples, s.Roles["hotB"].Samples
	if a+b == 0 {
		return 0
	}
	return float64(a) / float64(a+b)
}

// Summarize reads every sample of f and attributes each to the role of the
// innermost role function on its stack.
func Summarize(f *reader.File) (Summary, error) {
	frameRole := make([]string, len(f.FrameRefs()))
	for i := range frameRole {
		frameRole[i] = roleFuncs[f.Frame(uint32(i)).Func]
	}
	s := Summary{Roles: map[string]*RoleStats{}}
	gids := map[string]map[uint64]bool{}
	for _, r := range Roles {
		s.Roles[r] = &RoleStats{States: map[string]int{}}
		gids[r] = map[uint64]bool{}
	}
	all := map[uint64]bool{}
	it := f.Samples()
	defer it.Close()
	for it.NextRun() { // a run of samples counts at once
		smp, n := it.Sample(), int(it.Run().Count)
		s.Samples += n
		all[smp.ThreadID] = true
		for _, fr := range smp.Stack {
			if role := frameRole[fr]; role != "" {
				rs := s.Roles[role]
				rs.Samples += n
				rs.States[smp.Status.State().String()] += n
				gids[role][smp.ThreadID] = true
				break
			}
		}
	}
	if err := it.Err(); err != nil {
		return s, err
	}
	s.Goroutines = len(all)
	for r, g := range gids {
		s.Roles[r].Goroutines = len(g)
	}
	return s, nil
}

// Print writes the summary as a small table.
func (s Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "%d samples of %d goroutines\n", s.Samples, s.Goroutines)
	fmt.Fprintf(w, "%-14s %10s %6s  %s\n", "role", "goroutines", "samples", "states")
	for _, r := range Roles {
		rs := s.Roles[r]
		states := make([]string, 0, len(rs.States))
		for st := range rs.States {
			states = append(states, st)
		}
		sort.Strings(states)
		fmt.Fprintf(w, "%-14s %10d %7d ", r, rs.Goroutines, rs.Samples)
		for _, st := range states {
			fmt.Fprintf(w, " %s %.1f%%", st, 100*rs.Share(st))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "hotA/hotB split: %.1f%% / %.1f%% (workload: %.0f%% / %.0f%%)\n",
		100*s.Split(), 100*(1-s.Split()), 100*ShareA, 100*ShareB)
}

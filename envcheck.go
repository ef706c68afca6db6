package profiler

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gotachyon/profiler/internal/envnames"
	"github.com/gotachyon/profiler/internal/textdist"
)

// warnEnvOnce makes EnvOptions warn about the environment once a process.
var warnEnvOnce sync.Once

// envWarnings returns a line for every PROFILE_* variable set in environ
// (as os.Environ gives it) that no package of the profiler reads, with
// the nearest name one reads, or that has no effect with the others. An
// empty value counts as unset, as it does for the variables' readers.
func envWarnings(environ []string) []string {
	set := map[string]bool{}
	var names []string
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, envnames.Prefix) && v != "" && !set[k] {
			set[k] = true
			names = append(names, k)
		}
	}
	slices.Sort(names)
	window := recentOn(environ) ||
		set[envnames.Out] && !set[envnames.Recent] && (set[envnames.Segment] || set[envnames.RecentBytes])
	file := set[envnames.Out]
	if set[envnames.Recent] && recentOn(environ) {
		set[envnames.Out] = true // a profile kept in memory reads what a file's does
	}
	var lines []string
	for _, k := range names {
		need, excl := envnames.Needs[k], envnames.Excludes[k]
		switch {
		case !slices.Contains(envnames.All, k):
			w := "profiler: " + k + " is not a variable of the profiler: it has no effect"
			if near := nearestEnv(k); near != "" {
				w += "; did you mean " + near + "?"
			} else {
				w += " (the profiler reads " + strings.Join(envnames.All, ", ") + ")"
			}
			lines = append(lines, w)
		case need != "" && !set[need]:
			lines = append(lines, fmt.Sprintf("profiler: %s has no effect without %s", k, need))
		case slices.Contains(envnames.FileOnly, k) && !file:
			lines = append(lines, fmt.Sprintf("profiler: %s has no effect without %s: the profile is kept in memory only (%s)",
				k, envnames.Out, envnames.Recent))
		case slices.Contains(envnames.WindowOnly, k) && !window:
			lines = append(lines, fmt.Sprintf("profiler: %s has no effect without a recent window (%s, or %s with %s)",
				k, envnames.Recent, envnames.Segment, envnames.Out))
		case excl != "" && set[excl]:
			lines = append(lines, fmt.Sprintf("profiler: %s has no effect with %s", k, excl))
		}
	}
	return lines
}

// nearestEnv returns the known name nearest to name, or "" if none is
// near: at most one edit (textdist.Distance) per three bytes of the longer
// name past the prefix, or one name being the other and more letters.
func nearestEnv(name string) string {
	a := strings.TrimPrefix(name, envnames.Prefix)
	best, bestD := "", -1
	for _, known := range envnames.All {
		b := strings.TrimPrefix(known, envnames.Prefix)
		d := textdist.Distance(a, b)
		near := 3*d <= max(len(a), len(b)) || strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
		if near && (bestD < 0 || d < bestD) {
			best, bestD = known, d
		}
	}
	return best
}

// recentOn reports whether environ's PROFILE_RECENT keeps a window (is
// not "off").
func recentOn(environ []string) bool {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, envnames.Recent+"="); ok {
			d, err := time.ParseDuration(v)
			return v != "" && v != "off" && (err != nil || d != 0) // 0s is WithRecent's off
		}
	}
	return false
}

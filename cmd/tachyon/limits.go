package main

import (
	"errors"

	"github.com/gotachyon/profiler/export/limits"
)

// limitHints says, for each export limit, which flags move it: the
// exporters' errors name no flag, as a library's user has none.
var limitHints = map[limits.Limit]string{
	limits.StackFrames:  "raise it with --max-stack-frames",
	limits.FoldedBytes:  "raise it with --max-bytes",
	limits.NameBytes:    "raise it with --max-name-bytes",
	limits.Samples:      "raise it with --max-samples, or fold goroutines with --max-goroutines",
	limits.SampleFrames: "raise it with --max-sample-frames, or fold goroutines with --max-goroutines",
	limits.Reports:      "choose the busiest with --top N, or use --layout sequential",
}

// limitHint returns " (hint)", naming the flags that move the limit err
// passed, or "" when err passed none.
func limitHint(err error) string {
	if le, ok := errors.AsType[*limits.Error](err); ok && limitHints[le.Limit] != "" {
		return " (" + limitHints[le.Limit] + ")"
	}
	return ""
}

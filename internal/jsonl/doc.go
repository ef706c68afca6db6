// Package jsonl reads and writes the JSON-lines sample schema of the shared
// Tachyon test vectors: decoded samples ({"thread_id", "interpreter_id",
// "timestamp_us", "status", "stack"}, stack frames as [file, function,
// line] innermost first) and encoder input, the same lines after a first
// {"meta": {"start_time_us", "interval_us"}} line.
package jsonl

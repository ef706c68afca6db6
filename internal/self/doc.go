// Package self describes the running program to the exporters' AtStop
// functions, which export its profile when the profiler stops: its name,
// for titles, and its executable, whose line table gives the exports'
// start and declaration lines.
package self

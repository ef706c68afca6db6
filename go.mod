module github.com/gotachyon/profiler

go 1.26.0

require (
	github.com/felixge/fgprof v0.9.5
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/klauspost/compress v1.20.3
	golang.org/x/exp v0.0.0-20260908205506-85c1c2202aba
	golang.org/x/sys v0.49.0
)

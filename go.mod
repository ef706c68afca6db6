module github.com/gotachyon/profiler

go 1.26.0

require (
	github.com/klauspost/compress v1.20.3
	golang.org/x/sys v0.49.0
)

require (
	github.com/chzyer/readline v1.5.1 // indirect
	github.com/felixge/fgprof v0.9.5 // indirect
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe // indirect
	github.com/ianlancetaylor/demangle v0.0.0-20250417193237-f615e6bd150b // indirect
	golang.org/x/exp v0.0.0-20260908205506-85c1c2202aba // indirect
)

// Package httpprof serves Tachyon profiles over HTTP, like net/http/pprof's
// /debug/pprof/profile:
//
//	mux.Handle("/debug/tachyon", httpprof.Handler())
//
// then
//
//	curl -o prof.bin 'http://host/debug/tachyon?seconds=10&mode=wall'
//
// The request profiles the whole process for the given time and answers with
// the finalized Tachyon file. Unlike net/http/pprof, importing the package
// registers nothing: mount the handler where you want it (and protect it as
// you would pprof).
package httpprof

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
// the finalized Tachyon file, written to a temporary file rather than held
// in memory, and bounded by Options.MaxBytes. Unlike net/http/pprof,
// importing the package registers nothing: mount the handler where you want
// it, on a listener that is not public or behind authentication, as
// Handler's documentation explains: a profile exposes the program's stacks
// and source paths.
//
// Labels is the other half: a middleware that labels each request's
// goroutine with its route and method (the pprof labels http.route and
// http.method), so that a profile of a net/http service, wall or CPU, has
// each route's time, on CPU and off it:
//
//	http.ListenAndServe(addr, httpprof.Labels(mux))
package httpprof

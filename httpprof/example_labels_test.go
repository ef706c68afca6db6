package httpprof_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"

	"github.com/gotachyon/profiler/httpprof"
)

// Wrapping a service's mux labels every request's goroutine with the
// pattern that serves it and the method; a profile then has the time of
// each route, on and off CPU.
func ExampleLabels() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		// The handler's context carries the labels too.
		route, _ := pprof.Label(r.Context(), httpprof.LabelRoute)
		method, _ := pprof.Label(r.Context(), httpprof.LabelMethod)
		fmt.Println(route, method)
	})
	h := httpprof.Labels(mux) // http.ListenAndServe(addr, h) in a program

	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/items/42", nil))
	// Output: /items/{id} GET
}

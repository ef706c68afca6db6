// Package pyroscope pushes pprof profiles to Grafana Pyroscope through its
// push API, push.v1.PusherService/Push, with the Connect protocol over
// HTTP: Connect's client of pushv1connect's procedure, whose codec sends
// the payload Encode made as it is, and which reads at most a small answer
// (connect.WithReadMaxBytes, and a response body bounded by the
// transport).
//
// A payload is one PushRequest of one series: the labels __name__ ("wall"
// for a wall profile, "process_cpu" for a CPU one, so that Pyroscope names
// its profile types wall:wall:nanoseconds:wall:nanoseconds and
// process_cpu:cpu:nanoseconds:cpu:nanoseconds), service_name and the
// static labels, and one sample: the gzipped pprof profile with a random
// UUID. Pyroscope makes series of the profile's sample labels too: its
// distributor splits a profile by them, each distinct label set a series
// with the push's labels beside it, as it does with pyroscope-go's tags,
// so the caller keeps them of bounded cardinality. A sample label's name
// is sent as a Prometheus label name, which servers of every version
// take: http.route as http_route, as later servers write it themselves.
package pyroscope

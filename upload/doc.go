// Package upload ships finished profile segments to the profile stores
// fleets already run: Grafana Pyroscope (its push API,
// push.v1.PusherService/Push, over Connect) and OTLP profiles (the
// collector's ProfilesService/Export, over gRPC).
//
// An Uploader takes the path of each finalized Tachyon segment (Segment,
// which matches the profiler's segment hook), converts it to pprof with
// export/pprof, encodes it for its store, and queues the encoded payload;
// one goroutine pushes the queue in order. The root package profiler and
// package auto do not import this package, so programs that do not upload
// do not link it or its protocol modules: upload/auto is the blank import
// that wires it to PROFILE_OUT.
//
// # Labels
//
// A pushed profile carries the sample types of the pprof export (samples,
// wall and on_cpu for a wall profile; samples and cpu for a CPU profile),
// the sample labels state and wait_reason, and the program's labels as
// the export writes them: pprof labels set with profiler.Do (such as
// http.route and http.method of httpprof.Labels) and runtime/trace's task
// and region. The goroutine label, of unbounded cardinality, is dropped
// and the samples that differed only by it are added together, as
// Pyroscope makes a series of each distinct label set: the program keeps
// its own labels bounded (httpprof.Labels bounds its routes). The service
// name and the static Config.Labels are the series labels (Pyroscope:
// service_name and the labels, with __name__ "wall" or "process_cpu") or
// the resource attributes (OTLP: service.name and the labels).
//
// Pyroscope's distributor splits a pushed profile by its sample labels,
// each distinct set a series with the push's labels beside it (the push's
// win on a clash), as with pyroscope-go's tags: a route's time is a
// series of its own. Sample label names reach it as Prometheus label
// names (http.route as http_route), which every server version takes.
// OTLP has each sample's labels as its attributes, under their own names.
//
// # Safety
//
// The queue holds at most Config.QueueBytes of encoded payloads; a payload
// that does not fit evicts the oldest ones (the one being pushed included:
// its push is cancelled), and each eviction is counted in Stats. Pushes
// that fail for a reason that may pass (the store is down, overloaded or
// slow) are retried with exponential backoff and jitter, without limit
// while the payload stays queued; a payload the store refuses (bad request,
// unauthenticated) is dropped and counted as failed. Besides the queue,
// memory holds the one segment being converted; a payload is pushed as it
// was queued, without a decoded copy (Pyroscope's client copies it once
// into a pooled buffer). Segment never waits for the network,
// except that the last segment (last=true, the one Stop closes) waits until
// the queue is empty or Config.FlushTimeout (default 5 s) has passed.
// Nothing here panics on bad input: a segment that cannot be read or
// converted is logged and counted as failed.
//
// # What a store can do
//
// Nothing a store answers can make the uploader read or hold more than a
// small, fixed amount: an answer to a push is read up to 64 KiB (the
// message, compressed or not, and its headers), and an error's body up to
// its first 4 KiB, for the message; the rest is not read, and the push
// fails with the error logged (resource_exhausted, or the HTTP status)
// and is retried. A store that answers slowly or never is bounded by
// Config.Timeout. Messages show the store's URL with its password
// redacted.
package upload

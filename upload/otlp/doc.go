// Package otlp exports pprof profiles as OTLP profiles
// (go.opentelemetry.io/collector/pdata/pprofile) to a collector's gRPC
// ProfilesService: the Export call pprofileotlp's client makes, with its
// development-version metadata, but through a codec that sends the
// payload Encode made as it is, where pprofileotlp's client would take it
// decoded, copy it and encode it again. Answers are read up to a small
// bound (grpc.MaxCallRecvMsgSize and the header list size).
//
// A payload is one ExportRequest, marshaled: one resource (the attributes
// service.name and the static labels) with one scope
// (github.com/gotachyon/profiler) holding one OTLP profile per pprof
// sample type (samples, wall and on_cpu for a wall profile; samples and
// cpu for a CPU one), as an OTLP profile has a single sample type. The
// profiles share the request's dictionary: one mapping, the functions,
// locations and stacks, and the sample attributes (the pprof string
// labels under their own names: state, wait_reason and the program's
// labels, such as http.route). A sample whose value is 0 is
// left out of that type's profile.
package otlp

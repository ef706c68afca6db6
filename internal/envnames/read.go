package envnames

import "sync/atomic"

// UploadRead is set once Upload has been read for an uploader
// (upload.FromEnv, or upload.New with its URL). Package auto, which
// starts the profile before package upload/auto can register its
// uploader, checks it when the first file is finalized, to say that
// Upload has no effect in a program that links no uploader rather than
// ignore it.
var UploadRead atomic.Bool

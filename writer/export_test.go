package writer

// ZstdOptionsAt gives the benchmarks of package writer_test the encoder
// options the writer would use at another zstd level.
var ZstdOptionsAt = zstdOptionsAt

//go:build linux

package reader

import "golang.org/x/sys/unix"

const mapPopulate = unix.MAP_POPULATE

func adviseHuge(data []byte) { _ = unix.Madvise(data, unix.MADV_HUGEPAGE) }

package nytprof

import (
	"os"
	"syscall"
)

// Magic numbers of Linux pseudo file systems (statfs(2)).
var pseudoMagic = map[uint32]bool{
	0x9fa0:     true, // proc
	0x62656572: true, // sysfs
	0x1cd1:     true, // devpts
	0x64626720: true, // debugfs
	0x74726163: true, // tracefs
	0x73636673: true, // securityfs
	0x27e0eb:   true, // cgroup
	0x63677270: true, // cgroup2
	0xcafe4a11: true, // bpf
	0x6165676c: true, // pstore
	0xde5e81e4: true, // efivarfs
	0x42494e4d: true, // binfmt_misc
	0x1373:     true, // devfs
}

// pseudoFS reports whether f lives on a kernel pseudo file system.
func pseudoFS(f *os.File) bool {
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &st); err != nil {
		return true // cannot tell: refuse
	}
	return pseudoMagic[uint32(st.Type)]
}

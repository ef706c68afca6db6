//go:build unix && !linux

package reader

const mapPopulate = 0

func adviseHuge([]byte) {}

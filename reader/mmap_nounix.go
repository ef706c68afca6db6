//go:build !unix

package reader

import "os"

func mapFile(*os.File, int64) ([]byte, func() error, bool) { return nil, nil, false }

package self

import (
	"os"
	"path/filepath"
	"sync"
)

// Name returns the program's name, the base of os.Args[0], or "" when
// there is none.
func Name() string {
	if len(os.Args) == 0 || os.Args[0] == "" {
		return ""
	}
	return filepath.Base(os.Args[0])
}

// Executable returns the path of the running executable, as
// os.Executable finds it at the first call: every export of the process
// reads the same file.
var Executable = sync.OnceValues(os.Executable)

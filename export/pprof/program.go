package pprof

import (
	"path"
	"strings"

	"github.com/gotachyon/profiler/internal/labelframes"
	"github.com/gotachyon/profiler/reader"
)

// programName names the profiled program, for the main mapping (go tool
// pprof's "File:"): the binary when one is given; else the directory of
// main.main's file, after which go build names a program (with ".test"
// added for a test binary, whose main.main is the generated _testmain.go,
// and the package of its busiest outermost frames); else the package of
// the outermost user frames (those not in the standard library) that hold
// the most samples; else "unknown".
func programName(f *reader.File, a *agg, lf *labelframes.Frames, binary string) string {
	if binary != "" {
		return binary
	}
	mainFile, found := mainMain(f)
	testBinary := found && path.Base(mainFile) == "_testmain.go"
	if found && !testBinary {
		if dir := path.Base(path.Dir(mainFile)); dir != "." && dir != "/" {
			return dir
		}
	}
	name := busiestPackage(f, a, lf)
	switch {
	case name == "":
		return "unknown"
	case testBinary:
		return name + ".test"
	}
	return name
}

// mainMain returns the file of the frame of main.main, if there is one, in
// the slash-separated form Go records.
func mainMain(f *reader.File) (file string, ok bool) {
	for i := range f.FrameRefs() {
		if fr := f.Frame(uint32(i)); fr.Func == "main.main" {
			return strings.ReplaceAll(fr.File, `\`, "/"), true
		}
	}
	return "", false
}

// busiestPackage returns the last element of the package of each stack's
// outermost user frame that holds the most samples, or "" if no stack has
// a user frame. Label frames (lf) are no frames of code.
func busiestPackage(f *reader.File, a *agg, lf *labelframes.Frames) string {
	outer := make([]string, a.stacks.Len()) // per stack
	// A frame's package is worked out once: stacks share frames, and a
	// hostile file repeats one megabyte-long name 65,536 frames deep.
	userPkg := map[uint32]string{}
	for i := range outer {
		st := a.stacks.Stack(uint32(i))
		for j := lf.Code(st) - 1; j >= 0; j-- {
			pkg, ok := userPkg[st[j]]
			if !ok {
				if pkg = funcPackage(f.Frame(st[j]).Func); !isUserPackage(pkg) {
					pkg = ""
				}
				userPkg[st[j]] = pkg
			}
			if pkg != "" {
				outer[i] = pkg
				break
			}
		}
	}
	perPkg := map[string]int64{}
	for i, k := range a.keys {
		if pkg := outer[k.stack]; pkg != "" {
			perPkg[pkg] += a.counts[i]
		}
	}
	best, most := "", int64(-1)
	for pkg, n := range perPkg {
		if n > most || (n == most && pkg < best) {
			best, most = pkg, n
		}
	}
	if best == "" {
		return ""
	}
	return path.Base(best)
}

// funcPackage returns the import path of a Go function symbol such as
// "example.com/m/pkg.(*T).Method", or "" for a name without a package.
func funcPackage(fn string) string {
	slash := strings.LastIndexByte(fn, '/') + 1
	dot := strings.IndexByte(fn[slash:], '.')
	if dot <= 0 {
		return ""
	}
	return fn[:slash+dot]
}

// isUserPackage reports whether pkg is the program's own code: main, or a
// path whose first element has a dot (a module path, not the standard
// library's runtime, testing or internal/poll).
func isUserPackage(pkg string) bool {
	first, _, _ := strings.Cut(pkg, "/")
	return pkg == "main" || strings.Contains(first, ".")
}

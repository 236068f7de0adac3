// Package redistest is what the Redis family's tests and the conformance
// suite share, so that the model and real Redis are held to the same
// lines: the labs' scripts and their answers (testdata/labs), and the Lua
// library's cases (lua/testdata/library.txt).
package redistest

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// LibraryCase is one line of testdata/library.txt: a Lua expression and
// what its values make, each tostring'd and joined by "|".
type LibraryCase struct {
	Line       int
	Expr, Want string
}

// Script is the case as a script that returns its values so joined.
func (c LibraryCase) Script() string {
	return `local function j(...) local t = {} for i = 1, select("#", ...) do t[i] = tostring((select(i, ...))) end return table.concat(t, "|") end
return j(` + c.Expr + `)`
}

// LibraryCases reads testdata/library.txt, for the sandbox's tests and the
// conformance suite's, which hold the sandbox and real Redis to the same
// lines.
func LibraryCases(tb testing.TB) []LibraryCase {
	tb.Helper()
	_, here, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(here), "..", "lua", "testdata", "library.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var cases []LibraryCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		expr, want, ok := strings.Cut(line, " => ")
		if !ok {
			want, ok = strings.CutSuffix(line, " =>")
			expr, want = want, ""
		}
		if !ok {
			tb.Fatalf("library.txt:%d: no \" => \"", n)
		}
		cases = append(cases, LibraryCase{Line: n, Expr: expr, Want: want})
	}
	return cases
}

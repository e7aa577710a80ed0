package linematch

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The benchmarks run one worker's Matcher over the Go sources of a few
// standard packages (about 4 MB) held in memory, so they measure matching
// alone: no walk, no reads.
//
//	go test -run '^$' -bench . -benchtime 20x ./internal/linematch

func benchText(b *testing.B) []byte {
	b.Helper()
	var buf bytes.Buffer
	for _, pkg := range []string{"net", "net/http", "runtime", "go/types"} {
		files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", pkg, "*.go"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			buf.Write(data)
		}
	}
	return buf.Bytes()
}

func benchMatch(b *testing.B, pattern string, o Options) {
	data := benchText(b)
	q, err := Compile(pattern, o)
	if err != nil {
		b.Fatal(err)
	}
	m := q.Matcher()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		m.Reset()
		n := 0
		for pos := 0; pos < len(data); {
			_, e, ok := m.Next(data, pos)
			if !ok {
				break
			}
			n++
			pos = e + 1
		}
		b.ReportMetric(float64(n), "lines")
	}
}

func BenchmarkLiteral(b *testing.B) { benchMatch(b, "ErrUnexpectedEOF", Options{}) }
func BenchmarkFoldLiteral(b *testing.B) {
	benchMatch(b, "unexpected eof", Options{CaseInsensitive: true})
}
func BenchmarkFoldCommon(b *testing.B) { benchMatch(b, "return err", Options{CaseInsensitive: true}) }
func BenchmarkRegexLiteral(b *testing.B) {
	benchMatch(b, `func [A-Z][a-zA-Z]+\(ctx context\.Context`, Options{})
}
func BenchmarkWord(b *testing.B) { benchMatch(b, "err", Options{Word: true}) }
func BenchmarkDFA(b *testing.B)  { benchMatch(b, `[A-Z][a-z]+[0-9]{3,}`, Options{}) }

// BenchmarkDFANoLiteral is the pattern of the scan benchmark's
// no-literal row.
func BenchmarkDFANoLiteral(b *testing.B) { benchMatch(b, `[A-Z]{3}[0-9]{4}`, Options{}) }

// BenchmarkFoldRow is the pattern of the scan benchmark's
// case-insensitive row: every letter of it is common in Go in one case
// or the other.
func BenchmarkFoldRow(b *testing.B) {
	benchMatch(b, "context deadline", Options{CaseInsensitive: true})
}

package search

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// benchCorpus is the tree the in-process benchmarks search: set
// INDUSR_BENCH_CORPUS (scripts/bench-search builds one) or they skip.
func benchCorpus(b *testing.B) string {
	dir := os.Getenv("INDUSR_BENCH_CORPUS")
	if dir == "" {
		b.Skip("set INDUSR_BENCH_CORPUS to a source tree (scripts/bench-search builds one)")
	}
	return dir
}

func benchTool(b *testing.B, t tool.Tool, input string) {
	env := tool.NewEnv(benchCorpus(b))
	b.ReportAllocs()
	for b.Loop() {
		res := t.Run(context.Background(), json.RawMessage(input), env)
		if res.IsError {
			b.Fatal(res.PlainText())
		}
	}
}

func BenchmarkGrepLiteral(b *testing.B) {
	benchTool(b, GrepTool(Options{}), `{"pattern":"ErrUnexpectedEOF","output_mode":"content","head_limit":0}`)
}

func BenchmarkGrepFoldLiteral(b *testing.B) {
	benchTool(b, GrepTool(Options{}), `{"pattern":"unexpected eof","case_insensitive":true,"output_mode":"content","head_limit":0}`)
}

func BenchmarkGrepRegexLiteral(b *testing.B) {
	benchTool(b, GrepTool(Options{}), `{"pattern":"func [A-Z][a-zA-Z]+\\(ctx context\\.Context","output_mode":"content","head_limit":0}`)
}

func BenchmarkGrepNoLiteral(b *testing.B) {
	benchTool(b, GrepTool(Options{}), `{"pattern":"[0-9]{4}-[0-9]{2}-[0-9]{2}","output_mode":"content","head_limit":0}`)
}

func BenchmarkGrepFilesRare(b *testing.B) {
	benchTool(b, GrepTool(Options{}), `{"pattern":"ErrShortWrite"}`)
}

func BenchmarkFindTests(b *testing.B) {
	benchTool(b, FindTool(Options{}), `{"pattern":"**/*_test.go"}`)
}

func BenchmarkGrepCount(b *testing.B) {
	benchTool(b, GrepTool(Options{}), `{"pattern":"return","output_mode":"count","head_limit":0}`)
}

func BenchmarkGrepDFA(b *testing.B) {
	benchTool(b, GrepTool(Options{}), `{"pattern":"[A-Z][a-z]+[0-9]{3,}","output_mode":"content","head_limit":0}`)
}

// BenchmarkGrepContentStream prints every line holding "//" (about a
// million on the bench-search corpus) to a discarding stream, as the CLI
// does to stdout.
func BenchmarkGrepContentStream(b *testing.B) {
	env := tool.NewEnv(benchCorpus(b))
	g := GrepTool(Options{})
	ctx := tool.WithTextStream(context.Background(), io.Discard)
	b.ReportAllocs()
	for b.Loop() {
		if res := g.Run(ctx, json.RawMessage(`{"pattern":"//","output_mode":"content","head_limit":0}`), env); res.IsError {
			b.Fatal(res.PlainText())
		}
	}
}

package search_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/search"
)

// Grep streams the lines of grep's content output to a callback, in path
// order, without holding them: here every "TODO" of a small tree.
func ExampleGrep() {
	dir, _ := os.MkdirTemp("", "grep-example")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "cmd"), 0o755)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n// TODO: flags\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "cmd", "run.go"), []byte("// TODO: tests\npackage cmd\n"), 0o644)

	env := tool.NewEnv(dir)
	sum, err := search.Grep(context.Background(), env, search.GrepInput{Pattern: "TODO", Word: true}, search.Options{},
		func(l search.Line) error {
			fmt.Printf("%s:%d:%s\n", l.Path, l.Num, l.Text)
			return nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Matches, "matches in", sum.Files, "files")
	// Output:
	// cmd/run.go:1:// TODO: tests
	// main.go:2:// TODO: flags
	// 2 matches in 2 files
}

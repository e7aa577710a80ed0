package session_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/indusagi/induscode/session"
)

// Open a session in a project, read a file, edit it, and close the session
// (which stops everything its tools started).
func Example() {
	dir, err := os.MkdirTemp("", "project")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, world\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	s, err := session.Open(context.Background(), session.Options{Dir: dir, NoMCP: true})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	ctx := context.Background()
	s.Run(ctx, "read", []byte(`{"path":"hello.txt"}`)) // edit needs a read first
	res := s.Run(ctx, "edit", []byte(`{"path":"hello.txt","old_string":"world","new_string":"gopher"}`))
	fmt.Println("edit failed:", res.IsError)
	b, _ := os.ReadFile(filepath.Join(dir, "hello.txt"))
	fmt.Print(string(b))
	// Output:
	// edit failed: false
	// hello, gopher
}

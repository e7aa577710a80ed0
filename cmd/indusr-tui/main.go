// Command indusr-tui is induscode's agent in the terminal: a conversation
// with streaming answers, permission questions, diffs and slash commands.
// `indusr` (and `indusr-agent`) with no command in a terminal exec it,
// keeping the process, its streams and its exit status; every other
// command line is indusr-agent's. See cmd/internal/terminal.
package main

import (
	"os"

	"github.com/indusagi/induscode/cmd/internal/terminal"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
)

func main() {
	jail.Main() // a confined child's first step: see package jail
	// As indusr: every descendant whose parent exits comes back here.
	_ = childproc.BecomeSubreaper()
	os.Exit(terminal.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

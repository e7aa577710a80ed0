// Command indusr-agent is induscode's agent: `indusr-agent -p PROMPT` runs
// a prompt to its answer through a model and the deck's tools, and every
// other command line is indusr's. indusr execs it for -p, keeping the
// process, its streams and its exit status, so users and scripts go on
// typing `indusr -p`. It is a program of its own because it links the
// model SDKs, which indusr's other commands (serve, call, ...) must not
// pay for at every start. See cmd/internal/agent.
package main

import (
	"os"

	"github.com/indusagi/induscode/cmd/internal/agent"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
)

func main() {
	jail.Main() // a confined child's first step: see package jail
	// As indusr: every descendant whose parent exits comes back here, so
	// the end of the run also kills what left its group.
	_ = childproc.BecomeSubreaper()
	os.Exit(agent.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

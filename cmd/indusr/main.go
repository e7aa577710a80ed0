// Command indusr lists, calls and serves induscode's tools. See
// cmd/internal/cli for the commands.
package main

import (
	"os"

	"github.com/indusagi/induscode/cmd/internal/cli"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
)

func main() {
	jail.Main() // a confined child's first step: see package jail
	// Every descendant whose parent exits comes back to indusr, so the
	// end of a session also kills what left its group and dropped its
	// token. A choice for the whole process: made here, not by the
	// library (see childproc.BecomeSubreaper).
	_ = childproc.BecomeSubreaper()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

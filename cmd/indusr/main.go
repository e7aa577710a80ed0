// Command indusr lists, calls and serves induscode's tools. See
// cmd/internal/cli for the commands.
package main

import (
	"os"

	"github.com/indusagi/induscode/cmd/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

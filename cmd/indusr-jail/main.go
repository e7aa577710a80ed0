// Command indusr-jail sets up the children indusr confines under
// --sandbox workspace-write: started in user and mount namespaces of
// their own, it binds the workspace's protected paths read-only, applies
// the Landlock rules and execs the command. indusr finds it beside its
// own executable or on PATH; it is small, so it starts much faster than
// indusr would in its place. It does nothing when run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/indusagi/induscode/internal/jail"
)

func main() {
	jail.Main() // with a policy from indusr: confines and execs, never returns
	fmt.Fprintf(os.Stderr, "%s: indusr starts this program to confine the commands of a sandboxed session; it does nothing on its own\n", jail.HelperName)
	os.Exit(2)
}

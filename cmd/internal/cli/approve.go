package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/indusagi/induscode/session"
)

// writeUnits shows every unit of the groups as a person approving them
// needs to see it: each field that changes what runs or what is sent,
// with variables as written, the workspace files it runs, whether it is
// approved, and what changed since the last approval.
func writeUnits(w io.Writer, a *session.Approvals, groups ...string) {
	for _, name := range groups {
		g := a.Group(name)
		if g == nil {
			continue
		}
		for _, u := range g.Units {
			state := "approved"
			switch {
			case !u.Approved && g.Recorded:
				state = "changed or new since your approval"
			case !u.Approved:
				state = "not approved"
			}
			fmt.Fprintf(w, "  %s %s (%s) [%s]\n", u.Kind, u.Name, u.Where, state)
			for _, s := range u.Shows {
				fmt.Fprintf(w, "      %s\n", s)
			}
			if len(u.Files) > 0 {
				fmt.Fprintf(w, "      runs files: %s\n", strings.Join(u.Files, ", "))
			}
		}
		if g.Recorded && len(g.Changes) > 0 {
			fmt.Fprintf(w, "What changed since your approval of the %s group:\n", g.Name)
			for _, c := range g.Changes {
				fmt.Fprintf(w, "  %s\n", c)
			}
		}
	}
}

// errNotApproved is a refusal to approve: the user said no, or there was
// no one to ask.
var errNotApproved = errors.New("nothing approved")

// confirm asks on a terminal whether to approve (y/N); with no terminal
// it approves only with --yes and otherwise says how to. env names the
// variable that trusts for one run instead.
func confirm(in io.Reader, out io.Writer, terminal, yes bool, command, env string) error {
	if yes {
		return nil
	}
	if !terminal {
		return fmt.Errorf("%w: there is no terminal to ask on; review the list above and approve it with: %s --yes (or set %s=1 to trust it for one run)", errNotApproved, command, env)
	}
	fmt.Fprint(out, "Approve these as they are? [y/N] ")
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && line == "" {
		return fmt.Errorf("%w: no answer", errNotApproved)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return fmt.Errorf("%w: you answered no", errNotApproved)
}

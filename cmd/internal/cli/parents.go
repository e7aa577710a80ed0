package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// guardParents makes every command below root that only groups others
// (mcp, …) refuse an unknown subcommand as a usage error, exit code 2, with
// the nearest names. Left alone, cobra prints such a command's help and
// exits 0, so a typo looks like success. Given no argument, the command
// still prints its help. The root command already refuses unknown
// commands this way.
func guardParents(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.HasSubCommands() && !sub.Runnable() {
				sub.Args = unknownSubcommand
				sub.SuggestionsMinimumDistance = suggestDistance
				sub.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
			}
			walk(sub)
		}
	}
	walk(root)
}

// suggestDistance is how many edits a typo may be from a command's name
// to be suggested: cobra's own default for the root command.
const suggestDistance = 2

// unknownSubcommand refuses any argument of a command that only groups
// subcommands: cobra passes it one only when no subcommand matched.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	msg := "unknown command %q for %q"
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + quoteJoin(s) + "?"
	}
	msg += " (its commands: " + strings.Join(names, ", ") + "; see %q)"
	return usagef(msg, args[0], cmd.CommandPath(), cmd.CommandPath()+" --help")
}

func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
	}
	return strings.Join(q, " or ")
}

package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/session"
)

func newHooksCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "List and approve the workspace's command hooks",
		Long: `Command hooks are shell commands run at an event under Claude Code's hook
contract: a JSON request on stdin; exit 2 blocks the call with stderr as the
reason; exit 0 may print a JSON reply (permissionDecision, updatedInput, ...).
They come from [[hook]] tables of an addon's manifest.toml:

  [[hook]]
  event = "PreToolUse"       # PostToolUse, SessionStart, SessionEnd, UserPromptSubmit, PreCompact, Stop
  matcher = "bash"           # "" or "*": every tool; "edit|write"; a regex
  command = "\"$INDUSR_ADDON_DIR/check.sh\""
  timeout = 10               # seconds, default 60

and, with --claude-hooks (or INDUSR_CLAUDE_HOOKS=1), from the hooks section of
.claude/settings.json and .claude/settings.local.json. A repository's hooks
run as you on every tool call, so each group runs only once approved with
"indusr hooks trust"; INDUSR_TRUST_HOOKS=1 trusts them for one run (CI).
With --claude-hooks the hooks of your own ~/.claude/settings.json run too,
without an approval.`,
	}
	cmd.AddCommand(newHooksListCmd(opts), newHooksTrustCmd(opts))
	return cmd
}

// hookRow is one hook in `indusr hooks list --json`.
type hookRow struct {
	Group   string `json:"group"`
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
	Timeout string `json:"timeout"`
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Trusted bool   `json:"trusted"`
}

type hooksReport struct {
	Groups []*session.Group `json:"groups"`
	Hooks  []hookRow        `json:"hooks"`
	Faults []addonFaultRow  `json:"faults"`
}

func hooksOf(opts *options, a *session.Approvals) hooksReport {
	r := hooksReport{Groups: a.Groups, Hooks: []hookRow{}, Faults: []addonFaultRow{}}
	for _, g := range a.Groups {
		for _, u := range g.Units {
			h := u.Hook()
			if h == nil {
				continue
			}
			t := h.Timeout
			if t == 0 {
				t = hooks.DefaultTimeout
			}
			r.Hooks = append(r.Hooks, hookRow{Group: g.Name, Event: h.Name, Matcher: h.Matcher, Command: h.Command,
				Timeout: t.String(), File: relToWork(opts, h.File), Line: h.Line, Trusted: u.Approved})
		}
		for _, f := range g.Faults {
			r.Faults = append(r.Faults, faultRow(f))
		}
	}
	return r
}

// relToWork names a file relative to the working directory when inside it.
func relToWork(opts *options, file string) string {
	dir, err := session.WorkDir(opts.Dir)
	if err != nil {
		return file
	}
	return relTo(dir, file)
}

func newHooksListCmd(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the command hooks of the workspace and whether they are approved",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := session.ReadApprovals(sessionOptions(opts, cmd.ErrOrStderr()), session.AddonHooks, session.ClaudeHooks)
			if err != nil {
				return bootError(err)
			}
			r := hooksOf(opts, a)
			if opts.JSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			return writeHooks(cmd.OutOrStdout(), r, sessionOptions(opts, io.Discard).ClaudeHooks)
		},
	}
}

func writeHooks(w io.Writer, r hooksReport, claudeOn bool) error {
	if len(r.Hooks) == 0 && len(r.Faults) == 0 {
		_, err := fmt.Fprintln(w, "no command hooks in .indus/addons/*/manifest.toml or .claude/settings*.json")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tEVENT\tMATCHER\tTIMEOUT\tCOMMAND\tWHERE")
	for _, h := range r.Hooks {
		m := h.Matcher
		if m == "" {
			m = "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s:%d\n", h.Group, h.Event, m, h.Timeout, h.Command, h.File, h.Line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, g := range r.Groups {
		if !slices.ContainsFunc(g.Units, func(u *session.Unit) bool { return u.Hook() != nil }) {
			continue
		}
		state := "approved"
		if !g.Approved {
			state = "not approved (" + g.Why() + "): what is not approved does not run until you review it and run indusr hooks trust"
		}
		if g.Name == session.ClaudeHooks && !claudeOn {
			state += " (and they run only with --claude-hooks or INDUSR_CLAUDE_HOOKS=1)"
		}
		fmt.Fprintf(w, "%s hooks: %s\n", g.Name, state)
	}
	for _, f := range r.Faults {
		fmt.Fprintln(w, "fault:", faultLine(f))
	}
	return nil
}

func newHooksTrustCmd(opts *options) *cobra.Command {
	var revoke, yes bool
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Review and approve the command hooks and addon processes of this workspace",
		Long: `Show every command hook of the workspace (its addons' [[hook]] tables and
Claude Code's .claude/settings*.json) and every addon process ([process]
tables), with the workspace files each runs (the files a hook's command
names, the whole folder of an addon process), say what changed since your
last approval, and ask (y/N) before recording your approval of them as they
are now in $XDG_CONFIG_HOME/indusvx/approvals.json. With no terminal to ask
on, --yes approves. An approval covers every file under .claude/ and .indus/
as well as the files the commands name (and package.json for npm run or
npx), since a command can reach code there in ways no reading of it lists.
Any change to a hook, a process or a file they cover needs a new approval,
checked before every run; until then a changed PreToolUse hook holds the
calls it guards. The deck's write and edit never change a covered file.
Each unit's "sandbox:" line says how it is confined on this system.
--revoke withdraws the approval.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			sopts := sessionOptions(opts, cmd.ErrOrStderr())
			groups := []string{session.AddonHooks, session.ClaudeHooks}
			if revoke {
				had, err := session.Revoke(sopts, groups...)
				if err != nil {
					return bootError(err)
				}
				if had {
					fmt.Fprintln(out, "approval withdrawn: this workspace's command hooks will not run until you run indusr hooks trust again")
				} else {
					fmt.Fprintln(out, "this workspace had no approval to withdraw")
				}
				return nil
			}
			a, err := session.ReadApprovals(sopts, groups...)
			if err != nil {
				return bootError(err)
			}
			n, approved := 0, true
			for _, g := range a.Groups {
				n += len(g.Units)
				approved = approved && (g.Approved || len(g.Units) == 0 && !g.Recorded)
				for _, f := range g.Faults {
					fmt.Fprintln(cmd.ErrOrStderr(), "indusr: hooks:", f.Error())
				}
			}
			if n == 0 && approved {
				fmt.Fprintln(out, "this workspace declares no command hook and no addon process; nothing to approve")
				return nil
			}
			fmt.Fprintln(out, "These run as you, in this workspace, by themselves (hooks at the events named, processes for as long as a session lasts):")
			writeUnits(out, a, groups...)
			if approved {
				fmt.Fprintln(out, "already approved as they are")
				return nil
			}
			if err := confirm(cmd.InOrStdin(), out, isTerminal(cmd.InOrStdin()), yes, "indusr hooks trust", "INDUSR_TRUST_HOOKS"); err != nil {
				return &failure{err}
			}
			if _, err := session.Approve(sopts, groups...); err != nil {
				return &failure{err}
			}
			fmt.Fprintln(out, "approved; a change to any of them, or to a file they run, needs a new approval")
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "withdraw the approval of this workspace's command hooks")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "approve without asking (when there is no terminal)")
	return cmd
}

package jail

import "fmt"

// Enforces lists what mode m enforces on a system with r, one line each,
// for indusr sandbox check. A mode that cannot be enforced says that
// commands will be refused.
func (r Report) Enforces(m Mode) []string {
	if m.Canon() == Off {
		return []string{"no confinement: commands run with the user's full access"}
	}
	if r.ABI < 1 {
		return []string{"refused: every command fails with a sandbox message (no Landlock here)"}
	}
	var out []string
	switch m {
	case ReadOnly:
		out = append(out, "read anywhere the user can; write only a private temp folder ($TMPDIR) and /dev/null, terminals")
	case WorkspaceWrite:
		if r.Mount == nil {
			out = append(out, "read anywhere the user can; write anywhere in the workspace (new top-level entries too) and a private temp folder",
				"mount tier: the command starts in user and mount namespaces of its own, where .indusvx/, .indus/, .mcp.json, .claude/settings*.json and git's code and config (.git/hooks/, .git/config*, .git/commondir, .git/info/, .git/modules/, .git/worktrees/, a .git file) are bound read-only; one of them that did not exist and that the command creates, and any .git it makes below the top, is moved to "+Quarantine+" once it ends",
				"no setuid gains (no_new_privs), no capabilities; files move and link freely within the workspace, not in from outside it",
				"a PID namespace of its own: every process the command started ends when it does, or when indusr does")
			break
		}
		out = append(out, "read anywhere the user can; write the workspace's existing top-level entries and everything beneath them, and a private temp folder",
			"the workspace folder itself stays read-only (no new top-level entries), and so do .indusvx/, .indus/, .mcp.json, .claude/settings*.json, .git itself (no new entries at its top) and git's code and config (.git/hooks/, .git/config*, .git/commondir, .git/info/, .git/modules/, .git/worktrees/); a .git the command makes below the top is moved to "+Quarantine,
			fmt.Sprintf("per-entry tier: the mount tier is not available here (%v)", r.Mount))
	}
	if m != WorkspaceWrite || r.Mount != nil {
		out = append(out, "no setuid gains (no_new_privs); no moving or hard-linking files between folders (a link could carry a protected file)")
	}
	if m == ReadOnly && r.Mount == nil {
		out = append(out, "a PID namespace of its own: every process the command started ends when it does, or when indusr does")
	}
	if r.ABI < 3 {
		out = append(out, fmt.Sprintf("not enforced at ABI %d: truncating a file that is only readable", r.ABI))
	}
	switch {
	case r.ABI >= 4 && r.Seccomp:
		out = append(out, "network off: TCP bind and connect refused (Landlock), and every socket but a Unix one (IPv4, IPv6 and UDP, packet, netlink, vsock, ...) refused (seccomp)")
	case r.ABI >= 4:
		out = append(out, "network off: TCP bind and connect refused (Landlock); UDP and other socket families stay possible (no seccomp filter on this architecture)")
	case r.Seccomp:
		out = append(out, "network off: every socket but a Unix one refused (seccomp; Landlock has no network rules before ABI 4)")
	default:
		out = append(out, "network: not restricted (Landlock ABI below 4 and no seccomp filter here)")
	}
	if r.Seccomp {
		out = append(out, "no terminal of the user's (a session of its own), no typing into a terminal (TIOCSTI, TIOCLINUX refused); no descriptor of indusr's but its standard ones")
	} else {
		out = append(out, "no terminal of the user's (a session of its own); no descriptor of indusr's but its standard ones; typing into a terminal it opens is not filtered on this architecture")
	}
	if r.ABI >= 6 {
		out = append(out, "no signals to processes outside the sandbox, no abstract Unix sockets outside it")
	} else {
		out = append(out, fmt.Sprintf("not enforced at ABI %d: signals to outside processes, abstract Unix sockets", r.ABI))
	}
	return out
}

//go:build linux

package jail

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
)

// Unwrap takes the helper back out of a cmd that [Wrap] prepared, for a
// starter that confines the thread it starts cmd from: cmd runs its own
// program again, and apply, called on that locked thread just before
// cmd.Start, confines the thread, which the child then inherits across
// fork and exec. That saves starting this executable a second time,
// which is most of what confining a short command costs. The thread must
// not run anything else afterwards (it should end once the child is
// gone). ok is false for a cmd Wrap did not prepare.
//
// Where user namespaces are allowed a cmd goes the other way: Unwrap
// points cmd at the helper started in namespaces of its own, where the
// command gets a PID namespace of its own (see startInit) and, with a
// policy that writes the workspace, the binds of the mount tier (see
// bindProtected), which must be made in the child before Landlock; it
// returns ok false (start it as usual).
//
// A cmd that is started without Unwrap still goes through the helper, so
// a prepared cmd never runs unconfined by mistake.
func Unwrap(cmd *exec.Cmd) (apply func() error, ok bool) {
	exe := self.Load()
	if exe == nil || cmd.Path != *exe {
		return nil, false
	}
	isSpec := func(kv string) bool { return strings.HasPrefix(kv, EnvVar+"=") }
	// The last one counts, as for the helper (and os/exec).
	i := len(cmd.Env) - 1
	for i >= 0 && !isSpec(cmd.Env[i]) {
		i--
	}
	if i < 0 {
		return nil, false
	}
	var s spec
	if err := json.Unmarshal([]byte(cmd.Env[i][len(EnvVar)+1:]), &s); err != nil || s.Probe {
		return nil, false // the helper reports it, and runs nothing
	}
	if MountTier() == nil {
		if err := toMountTier(cmd, s); err == nil {
			return nil, false
		}
	}
	cmd.Env = slices.DeleteFunc(slices.Clone(cmd.Env), isSpec)
	cmd.Path = s.Path
	return func() error {
		// The child is forked from this process: what it holds without
		// close-on-exec (made so after Main, or left by a caller) must
		// not reach the target, which has no helper to close it.
		closeInherited(3)
		return confine(s.Policy, s.Nested, false, false)
	}, true
}

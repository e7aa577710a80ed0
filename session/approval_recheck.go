package session

// An approval is judged when a session starts, but a hook or an addon
// process runs many times after that, and anything that can write the
// workspace meanwhile (the user's editor, a command under the off mode,
// another program) could change the code it runs. So each is checked
// again, against the approval, right before every run: the files it runs
// and every file under the hook folders are read afresh and must be what
// was approved.

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/approval"
)

// checkHook is the hooks' Check: the hook's unit must still be as
// approved.
func (a *Approvals) checkHook(h *hooks.Hook) error {
	for _, g := range a.Groups {
		if g.Overridden {
			continue
		}
		for _, u := range g.Units {
			if k := u.hook; k != nil && k.File == h.File && k.Line == h.Line && k.Name == h.Name && k.Command == h.Command {
				return a.recheck(u)
			}
		}
	}
	return nil // not a workspace's hook (the user's own): nothing to check
}

// checkProcess is the check of the [process] addon whose manifest is
// file, before each start of its process.
func (a *Approvals) checkProcess(file string) error {
	g := a.Group(AddonHooks)
	if g == nil || g.Overridden {
		return nil
	}
	for _, u := range g.Units {
		if u.process == file {
			return a.recheck(u)
		}
	}
	return nil
}

// recheck reads the files of u afresh and compares them with the items
// it was approved with; the error names what changed and the fix.
func (a *Approvals) recheck(u *Unit) error {
	tree, err := approval.OpenTree(a.Root)
	if err != nil {
		return err
	}
	defer tree.Close()
	var then, now []approval.Item
	inFolders := func(id string) bool {
		for _, f := range hookFolders {
			if strings.HasPrefix(id, "file "+f+"/") {
				return true
			}
		}
		return false
	}
	for _, it := range u.items {
		if !strings.HasPrefix(it.ID, "file ") {
			continue
		}
		then = append(then, it)
		if !inFolders(it.ID) {
			if n, ok := tree.File(filepath.Join(a.Root, filepath.FromSlash(strings.TrimPrefix(it.ID, "file ")))); ok {
				now = append(now, n)
			}
		}
	}
	for _, f := range hookFolders {
		if items, err := tree.Folder(filepath.Join(a.Root, f)); err == nil {
			for _, it := range items {
				if coversFolderFile(u.Group, it.ID) {
					now = append(now, it)
				}
			}
		}
	}
	changes := append(approval.Diff(then, now), unverifiable(now)...)
	if len(changes) == 0 {
		return nil
	}
	parts := make([]string, len(changes))
	for i, c := range changes {
		parts[i] = c.String()
	}
	return fmt.Errorf("its code changed since you approved it (%s), so it does not run until you review the change and run: indusr hooks trust", strings.Join(parts, "; "))
}

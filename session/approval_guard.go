package session

// The guard of approved code against the deck's own write and edit. They
// run in indusr, outside every sandbox, and a permission mode may let the
// model change any file without asking; code the user approved must still
// not be rewritten by the model, or the next event runs what the user
// never saw. So write and edit refuse, whatever the mode, every file an
// approval of this workspace covers, and the places where a workspace
// keeps code that runs by itself once approved, as the sandbox does.

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/indusagi/induscode/approval"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/tools/files"
	"github.com/indusagi/induscode/workspace"
)

// groupLabels name each group's approval in messages, with the command
// that records it.
var groupLabels = map[string][2]string{
	MCPGroup:    {"this workspace's MCP servers", "indusr mcp trust"},
	AddonHooks:  {"this workspace's addon hooks and processes", "indusr hooks trust"},
	ClaudeHooks: {"this workspace's Claude Code hooks", "indusr hooks trust"},
}

// hookFolders are the folders an approval of a workspace's hooks covers
// whole (see hookFolderItems): a command reaches code there in ways no
// reading of it can list (source, globs, $(cat ...), cd).
var hookFolders = []string{".claude", ".indus"}

// declaringFiles are the files that declare each group's units, relative
// to the workspace: what they say is part of the approval too.
func declaringFiles(group, rel string) bool {
	switch group {
	case MCPGroup:
		return rel == ".mcp.json" || rel == workspace.StateDir+"/mcp.json"
	case AddonHooks, ClaudeHooks:
		for _, f := range hookFolders {
			if rel == f || strings.HasPrefix(rel, f+"/") {
				return true
			}
		}
	}
	return false
}

// guardApproved installs the session's guard on its write and edit.
func (s *Session) guardApproved() {
	root := workspace.At(s.dir).Root()
	files.GuardApproved(s.base.Env(), func(at string, rels ...string) error {
		return refuseApprovedWrite(s.opts, root, at, rels...)
	})
}

// refuseApprovedWrite is the guard: at is the workspace root a file lies
// in, rels the file relative to it (as named, and with links followed).
func refuseApprovedWrite(opts Options, root, at string, rels ...string) error {
	same := sameFile(at, root)
	var store *approval.Store
	if same {
		if st, err := approvalStore(opts); err == nil {
			store = &st
		}
	}
	for _, rel := range rels {
		rel = filepath.ToSlash(filepath.Clean(rel))
		if store != nil {
			if err := refuseCovered(*store, root, rel); err != nil {
				return err
			}
		}
		if codePlace(rel) {
			return fmt.Errorf("refusing to change %s: it is where this workspace keeps code that runs by itself once approved (Claude Code's hooks and settings, addons, agent profiles, MCP configs, indusr's state), "+
				"and write and edit never change it, whatever the permission mode. Ask the user to make this change; they review it with indusr hooks trust or indusr mcp trust", rel)
		}
	}
	return nil
}

// refuseCovered refuses rel when a recorded approval of the workspace at
// root covers it: as a file item first (the approval that runs it), then
// as a file its group declares units in.
func refuseCovered(store approval.Store, root, rel string) error {
	groups := []string{ClaudeHooks, AddonHooks, MCPGroup}
	if rel == ".indus" || strings.HasPrefix(rel, ".indus/") {
		groups = []string{AddonHooks, ClaudeHooks, MCPGroup}
	}
	recs := map[string]approval.Record{}
	for _, g := range groups {
		rec, ok, err := store.Recorded(root, g)
		if err != nil {
			return fmt.Errorf("refusing to change %s: the approvals in %s cannot be read (%v), so whether one covers it is unknown", rel, store.Path(), err)
		}
		if ok {
			recs[g] = rec
		}
	}
	for pass := range 2 {
		for _, g := range groups {
			rec, ok := recs[g]
			if !ok || pass == 0 && !covered(rec, rel) || pass == 1 && !declaringFiles(g, rel) {
				continue
			}
			label := groupLabels[g]
			return fmt.Errorf("refusing to change %s: your approval of %s (recorded %s with %s) covers it, and write and edit never change code an approval covers, whatever the permission mode: "+
				"the next hook or server start would run code you did not approve. Ask the user to make this change and approve it again with %s",
				rel, label[0], rec.At.Local().Format("2006-01-02 15:04"), label[1], label[1])
		}
	}
	return nil
}

// covered reports whether the record holds the file rel as an item.
func covered(rec approval.Record, rel string) bool {
	id := approval.FileID(rel)
	for _, it := range rec.Items {
		if it.ID == id {
			return true
		}
	}
	return false
}

// codePlace reports whether rel is a place the sandbox keeps from every
// confined command (jail.IsProtected), or Claude Code's hooks folder.
func codePlace(rel string) bool {
	return jail.IsProtected(rel) || rel == ".claude/hooks" || strings.HasPrefix(rel, ".claude/hooks/")
}

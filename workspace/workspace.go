// Package workspace is the one place that spells where induscode keeps
// project-local state: every path under <workspace>/.indusvx/ (MCP config,
// ledger log, tool-list cache, checkpoints, sessions, background-process
// logs, MCP server logs, plans, memory, prompt history, locks, temp files).
//
// It is also the one funnel through which those paths are opened: a clone
// may hold a .indusvx that is a symlink, or links, named pipes and files of
// another user inside it, so [OpenFile], [MkdirAll], [WriteFile] and their
// siblings walk down from the state folder without following a symlink and
// refuse any entry that is not a plain folder or file of the user's, with
// an error that names it and how to remove it. Callers use them, never
// package os, on a path a [Layout] spells.
//
// The files a repository provides as configuration (MCP configs, Claude
// Code's settings, AGENTS.md, agent profiles) are read through
// [ReadRepoFile] alone: beneath the workspace, regular files only, within a
// size bound, never waiting on a named pipe.
//
// Nothing is created until it is needed. [MkdirAll] creates a folder under
// the state folder and, when it is the one to create the state folder
// itself, writes a .gitignore holding "*" into it, so the folder ignores
// itself and never lands in a commit.
package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// StateDir is the name of the state folder at the workspace root.
const StateDir = ".indusvx"

// legacyBackground is where background-process logs lived before they
// moved under the state folder; [Layout.MigrateLegacy] moves them.
const legacyBackground = ".indusvx-bg"

// ignoreAll is the .gitignore of the state folder: everything in it.
const ignoreAll = "# induscode's project-local state; never committed.\n*\n"

// Layout names the state paths of one workspace. The zero value is not
// useful; make one with [At].
type Layout struct{ root string }

// At returns the layout of the workspace rooted at root. A relative root
// is made absolute against the current directory.
func At(root string) Layout {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return Layout{root: filepath.Clean(root)}
}

// Root is the workspace root.
func (l Layout) Root() string { return l.root }

// State is <root>/.indusvx.
func (l Layout) State() string { return filepath.Join(l.root, StateDir) }

func (l Layout) in(parts ...string) string {
	return filepath.Join(append([]string{l.root, StateDir}, parts...)...)
}

// Crews holds the crew runs (indusr crew run): a folder per run with a
// git worktree per teammate and the board.
func (l Layout) Crews() string { return l.in("crews") }

// MCPConfig is the workspace's own MCP server config file.
func (l Layout) MCPConfig() string { return l.in("mcp.json") }

// ProjectMCPConfig is the Claude-Code-style .mcp.json at the root, which
// is shared with the project (and so outside the state folder).
func (l Layout) ProjectMCPConfig() string { return filepath.Join(l.root, ".mcp.json") }

// Ledger is the MCP enrollment ledger log.
func (l Layout) Ledger() string { return l.in("ledger.jsonl") }

// ToolCache holds the cached tool lists of MCP servers.
func (l Layout) ToolCache() string { return l.in("mcp-cache") }

// MCPLogs holds one stderr log per stdio MCP server.
func (l Layout) MCPLogs() string { return l.in("mcp-logs") }

// Checkpoints holds the checkpoint store of write and edit.
func (l Layout) Checkpoints() string { return l.in("checkpoints") }

// Sessions holds named sessions, one file each.
func (l Layout) Sessions() string { return l.in("sessions") }

// Session is the file of the named session. The name must already be
// checked as safe for a file name.
func (l Layout) Session(name string) string { return l.in("sessions", name+".json") }

// Background holds the capture files of background processes and the full
// output of long bash commands.
func (l Layout) Background() string { return l.in("bg") }

// LegacyBackground is where older versions kept Background.
func (l Layout) LegacyBackground() string { return filepath.Join(l.root, legacyBackground) }

// Logs holds the logs of the deck itself and of addons.
func (l Layout) Logs() string { return l.in("logs") }

// AddonLogs holds one log per subprocess addon: its stderr, the stdout
// lines that were not protocol messages, and the host's notes.
func (l Layout) AddonLogs() string { return l.in("addon-logs") }

// AddonState holds per subprocess addon its cached declarations and its
// crash record (quarantine).
func (l Layout) AddonState() string { return l.in("addon-state") }

// Plans holds plan files written when a plan is approved.
func (l Layout) Plans() string { return l.in("plans") }

// Memory is the file of the file-backed memory store.
func (l Layout) Memory() string { return l.in("memory.md") }

// Downloads holds bodies fetched from the web that are not text.
func (l Layout) Downloads() string { return l.in("downloads") }

// SearchIndex is the folder of grep's n-gram index (package
// internal/searchindex).
func (l Layout) SearchIndex() string { return l.in("index") }

// Procs holds one small record per live session that started processes
// (owner, token, process groups), so a later session can kill what a
// session killed with SIGKILL left running.
func (l Layout) Procs() string { return l.in("procs") }

// Locks holds advisory lock files (one per target, never on the target).
func (l Layout) Locks() string { return l.in("locks") }

// History is the file of the prompts typed in the terminal UI, newest last.
func (l Layout) History() string { return l.in("history.jsonl") }

// Transcripts holds the conductor's conversations, one JSONL file each.
func (l Layout) Transcripts() string { return l.in("transcripts") }

// Temp holds scratch files of the deck.
func (l Layout) Temp() string { return l.in("tmp") }

// stateAncestor returns the nearest folder named StateDir on dir's path
// (dir itself included).
func stateAncestor(dir string) (string, bool) {
	for d := dir; ; {
		if filepath.Base(d) == StateDir {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// MigrateLegacy moves the files of an old .indusvx-bg folder into
// [Layout.Background] and removes the old folder once it is empty. A
// workspace without one is left alone. Files that cannot be moved stay
// where they are; the error names the first.
func (l Layout) MigrateLegacy() error {
	old := l.LegacyBackground()
	fi, err := os.Lstat(old)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		// A repository's symlink must not make us move files from
		// wherever it points into the workspace.
		return &UnsafeError{Path: old, Reason: kindOf(fi.Mode())}
	}
	entries, err := os.ReadDir(old)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		if err := MkdirAll(l.Background(), 0o700); err != nil {
			return err
		}
	}
	var first error
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if err := renameInto(filepath.Join(old, e.Name()), l.Background(), e.Name()); err != nil && first == nil {
			first = err
		}
	}
	if err := os.Remove(old); err != nil && first == nil && !isNotEmpty(err) {
		first = err
	}
	return first
}

func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}

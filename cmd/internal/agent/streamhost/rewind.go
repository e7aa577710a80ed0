package streamhost

import (
	"fmt"

	"github.com/indusagi/induscode/deck/checkpoint"
)

// rewindFiles answers rewind_files: the workspace's files go back to how
// they were before the user message id ran (every later turn's changes
// undone too), as `indusr rewind` does with that turn's checkpoint node.
// With dryRun nothing changes and the answer says what would. Files
// changed since by something else refuse the rewind (canRewind false),
// as `indusr rewind` without --force does.
func (h *host) rewindFiles(id string, dryRun bool) map[string]any {
	no := func(format string, args ...any) map[string]any {
		return map[string]any{"canRewind": false, "error": fmt.Sprintf(format, args...)}
	}
	h.mu.Lock()
	node, ok := h.nodes[id]
	running := h.cancel != nil
	h.mu.Unlock()
	if !ok {
		return no("no user message %q of this session changed files", id)
	}
	if running && !dryRun {
		return no("a turn is running; interrupt it first")
	}
	dir := h.cfg.Options.Session.Dir
	store := checkpoint.ForWorkspace(dir)
	nodes, err := store.Nodes()
	if err != nil {
		return no("%v", err)
	}
	if _, err := checkpoint.FindNode(nodes, node); err != nil {
		return no("the message's turn changed no file")
	}
	plan, err := checkpoint.NewPlan(store, node, []string{dir})
	if err != nil {
		return no("%v", err)
	}
	files := []string{}
	for _, c := range plan.Changes {
		files = append(files, c.Path)
	}
	if drift := plan.Drifted(); len(drift) > 0 {
		return no("%d file(s) changed since the checkpoint (such as %s); indusr rewind --force throws those changes away", len(drift), drift[0].Path)
	}
	if !dryRun {
		if err := plan.Apply(store, []string{dir}); err != nil {
			return no("the rewind is incomplete (retry it): %v", err)
		}
	}
	return map[string]any{"canRewind": true, "filesChanged": files}
}

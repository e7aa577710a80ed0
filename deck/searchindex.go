package deck

import (
	"context"
	"encoding/json"

	"github.com/indusagi/induscode/tool"
)

// refresher is a search index that the deck's own changes keep current
// (internal/searchindex.Index and its Keeper).
type refresher interface{ Refresh(paths ...string) }

// refreshIndex wraps a tool that changes files (write, edit) so that the
// search index reads each file it changed again in the same call: grep
// can then pass over the file by its new content instead of scanning it
// until the next build. Tools that do not say which files they change,
// and a deck without an index, are left as they are. The wrapper is still
// a [tool.FileChanger], so checkpointing and diagnostics see through it.
func refreshIndex(t tool.Tool, idx any) tool.Tool {
	r, ok := idx.(refresher)
	fc, changer := t.(tool.FileChanger)
	if !ok || !changer {
		return t
	}
	return &refreshing{inner: fc, idx: r}
}

type refreshing struct {
	inner tool.FileChanger
	idx   refresher
}

var _ tool.FileChanger = (*refreshing)(nil)

func (r *refreshing) Spec() tool.Spec   { return r.inner.Spec() }
func (r *refreshing) Unwrap() tool.Tool { return r.inner }
func (r *refreshing) ChangedPaths(args json.RawMessage) ([]string, error) {
	return r.inner.ChangedPaths(args)
}

func (r *refreshing) Run(ctx context.Context, input json.RawMessage, env *tool.Env) tool.Result {
	res := r.inner.Run(ctx, input, env)
	named, err := r.inner.ChangedPaths(input)
	if err != nil {
		return res
	}
	var paths []string
	for _, p := range named {
		if abs, err := env.Resolve(p); err == nil {
			paths = append(paths, abs)
		}
	}
	// Even a failed call may have changed a file; reading it again is
	// right either way.
	r.idx.Refresh(paths...)
	return res
}

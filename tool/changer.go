package tool

import "encoding/json"

// FileChanger is a Tool that can say, before a call runs, which files the
// call will change. A host files their current content first, so the
// change can be rewound (package deck/checkpoint does this for every
// FileChanger on a deck: write and edit, and any grafted or addon tool
// that implements it). Tools that cannot know in advance (a shell
// command) do not implement it.
type FileChanger interface {
	Tool
	// ChangedPaths returns the files a call with input args would create,
	// replace or delete, as the input names them: absolute, or relative
	// to the session's working directory. An error means args names no
	// usable path; the tool says so itself when it runs.
	ChangedPaths(args json.RawMessage) ([]string, error)
}

// ChangesFiles makes the tool [New] builds a [FileChanger] whose
// ChangedPaths is paths. paths reads only what it needs from the raw
// input: it runs before the input is validated, on every call.
func ChangesFiles(paths func(args json.RawMessage) ([]string, error)) Option {
	return func(b *build) { b.changes = paths }
}

// changer is a typed tool that says which files a call changes.
type changer[In any] struct {
	*typed[In]
	paths func(json.RawMessage) ([]string, error)
}

var _ FileChanger = (*changer[struct{}])(nil)

func (c *changer[In]) ChangedPaths(args json.RawMessage) ([]string, error) { return c.paths(args) }

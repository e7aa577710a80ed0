package tool

import (
	"context"
	"io"
)

type textStreamKey struct{}

// WithTextStream returns a context asking the tools that can to write the
// text of their result to w as they produce it, instead of holding it
// whole: a caller that prints to a terminal or a pipe (the CLI) sees the
// first lines at once, and output of any size costs bounded memory.
//
// A tool that streams writes complete lines to w and returns a Result
// holding only the text that follows them (notices, a summary), which may
// be empty; a tool that does not stream ignores w and returns its whole
// result. Either way, w's output followed by the Result's text is what the
// caller shows. A nil w withdraws the request: wrappers that must see the
// whole result (the addons' interceptors) pass that on.
func WithTextStream(ctx context.Context, w io.Writer) context.Context {
	return context.WithValue(ctx, textStreamKey{}, w)
}

// TextStream returns the writer WithTextStream put on ctx, or nil.
func TextStream(ctx context.Context) io.Writer {
	w, _ := ctx.Value(textStreamKey{}).(io.Writer)
	return w
}

package files

import (
	"fmt"

	"github.com/indusagi/induscode/internal/linediff"
)

// unified renders the diff edit returns: DiffContext lines of context, line
// ends shown as plain newlines (a CRLF file's "\r" is dropped so the diff
// reads cleanly), cut at MaxDiffBytes with a notice that says how to see
// the rest.
func unified(oldName, newName string, a, b []string, cs []linediff.Change) string {
	d, cut := linediff.Unified(oldName, newName, a, b, cs, linediff.Options{
		Context: DiffContext, StripCR: true, MaxBytes: MaxDiffBytes})
	if cut {
		d += fmt.Sprintf("[diff cut at %d KB; read the file to see the rest of the change]\n", MaxDiffBytes/1024)
	}
	return d
}

package workspace

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/indusagi/induscode/internal/atomicfile"
)

// noteExt ends the name of a note of the [Journal]: the temp file's name
// without its leading dot, then this.
const noteExt = ".note"

// Journal notes the temp files of atomic writes in the workspace (the
// write and edit tools' files, the state folder's own), one small note per
// temp file in [Layout.Temp], so that the temp file of a writer killed
// mid-write is removed at the next session start ([Layout.SweepTemps])
// instead of lingering, visible to git status, until it is an hour old.
// It is an [atomicfile.Recorder].
type Journal struct{ l Layout }

var _ atomicfile.Recorder = Journal{}

// Journal is the journal of the workspace's temp files.
func (l Layout) Journal() Journal { return Journal{l} }

// Record notes temp, a temp file (named by atomicfile.TempName) inside
// the workspace, before it is created; forget removes the note. A note
// that cannot be written is skipped: the age-based sweep still catches
// the temp file.
func (j Journal) Record(temp string) (forget func()) {
	rel, err := filepath.Rel(j.l.root, temp)
	base := filepath.Base(temp)
	if err != nil || !filepath.IsLocal(rel) || !strings.HasPrefix(base, atomicfile.TempPrefix) {
		return func() {}
	}
	note := filepath.Join(j.l.Temp(), base[1:]+noteExt)
	if MkdirAll(j.l.Temp(), 0o700) != nil {
		return func() {}
	}
	f, err := OpenFile(note, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return func() {}
	}
	_, err = f.WriteString(rel)
	if cerr := f.Close(); err != nil || cerr != nil {
		Remove(note)
		return func() {}
	}
	return func() { Remove(note) }
}

// SweepTemps removes the temp files noted in the journal whose writer is
// gone, and their notes, and returns how many temp files it removed. A
// note names only a file inside the workspace with the temp name the note
// is named after, so a planted note can remove nothing else.
func (l Layout) SweepTemps() int {
	entries, err := ReadDir(l.Temp())
	if err != nil {
		return 0
	}
	var root *os.Root
	n := 0
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), noteExt)
		temp := "." + name
		if !ok || !atomicfile.Orphaned(temp) {
			continue
		}
		note := filepath.Join(l.Temp(), e.Name())
		if b, err := ReadFile(note); err == nil && filepath.IsLocal(string(b)) && filepath.Base(string(b)) == temp {
			if root == nil {
				if root, err = os.OpenRoot(l.root); err != nil {
					return n
				}
				defer root.Close()
			}
			if fi, err := root.Lstat(string(b)); err == nil && fi.Mode().IsRegular() && root.Remove(string(b)) == nil {
				n++
			}
		}
		Remove(note)
	}
	return n
}

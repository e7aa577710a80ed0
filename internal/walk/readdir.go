//go:build !linux

package walk

import "os"

// readDir lists a directory without sorting it (the walk does not need
// order) and without a stat per entry where the OS reports types. It
// keeps no directory open.
func readDir(dir, prefix string, _ *dirBudget, ents []dirEntry) ([]dirEntry, *openDir, error) {
	ents, err := readEntries(dir, prefix, ents)
	return ents, nil, err
}

func readEntries(dir, prefix string, ents []dirEntry) ([]dirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return ents, err
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	for _, d := range des {
		p := prefix + d.Name()
		ents = append(ents, dirEntry{path: p, name: p[len(prefix):], typ: d.Type()})
	}
	return ents, err
}

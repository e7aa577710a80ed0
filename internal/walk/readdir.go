//go:build !linux

package walk

import "os"

// readDir lists a directory without sorting it (the walk does not need
// order) and without a stat per entry where the OS reports types. It
// keeps no directory open.
func readDir(dir, prefix string, _ *dirBudget) ([]dirEntry, *openDir, error) {
	ents, err := readEntries(dir, prefix)
	return ents, nil, err
}

func readEntries(dir, prefix string) ([]dirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	ents := make([]dirEntry, 0, len(des))
	for _, d := range des {
		p := prefix + d.Name()
		ents = append(ents, dirEntry{path: p, name: p[len(prefix):], typ: d.Type()})
	}
	return ents, err
}

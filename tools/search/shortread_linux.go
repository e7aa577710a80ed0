package search

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// shortReadEnds reports whether, for every file a search of root may
// read, a read that returns less than it was asked for has reached the
// file's end. On the local filesystems of localFS it has: a read fills
// the buffer from the page cache unless the file ends (or a fatal signal
// ends the process), so the further read that would return 0, a quarter
// of the system calls of a search over small files, can be skipped.
// Network, FUSE and other filesystems may return less on their own, so
// when root is on one, or one is mounted anywhere beneath it, every file
// is read until a read returns nothing.
func shortReadEnds(root string) bool {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	return mountsEndShort(data, filepath.Clean(root))
}

// localFS are the filesystems whose reads of regular files are short only
// at the end of the file.
var localFS = map[string]bool{"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true, "tmpfs": true, "overlay": true, "f2fs": true}

// mountsEndShort applies shortReadEnds's rule to a mountinfo table: the
// mount holding root (the longest mount point that contains it) and every
// mount beneath root must be of a localFS.
func mountsEndShort(mountinfo []byte, root string) bool {
	holder, holderFS := "", ""
	for line := range bytes.Lines(mountinfo) {
		// id parent major:minor root mountpoint options [optional...] - fstype source super
		pre, post, ok := strings.Cut(strings.TrimSpace(string(line)), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 1 {
			return false // not the format we know: take no chance
		}
		point, fs := unescapeMount(fields[4]), tail[0]
		switch {
		case within(root, point):
			if len(point) >= len(holder) {
				holder, holderFS = point, fs
			}
		case within(point, root):
			if !localFS[fs] {
				return false
			}
		}
	}
	return holder != "" && localFS[holderFS]
}

// within reports whether path is dir or beneath it.
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

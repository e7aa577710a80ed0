package search

import "testing"

// The read that returns nothing is skipped only where every file of the
// search is on a local filesystem: the mount that holds the root, and
// every mount beneath it.
func TestShortReadEndsOnlyOnLocalFilesystems(t *testing.T) {
	table := `21 26 0:20 / /proc rw,relatime - proc proc rw
26 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw
30 26 0:40 / /home/u/repo/vendor/remote rw,relatime - nfs4 srv:/x rw
31 26 0:41 / /scratch rw - tmpfs tmpfs rw
32 31 0:42 / /scratch/fuse rw - fuse.sshfs host: rw
33 26 0:43 / /mnt/my\040disk rw - xfs /dev/sdb1 rw
34 26 0:44 / /net rw - nfs srv:/n rw
`
	for root, want := range map[string]bool{
		"/home/u/other":         true,  // on / (ext4), nothing beneath
		"/home/u/repo":          false, // an NFS mount beneath it
		"/home/u/repo/vendor":   false,
		"/scratch/work":         true, // tmpfs, the FUSE mount is not beneath
		"/scratch":              false,
		"/mnt/my disk/src":      true,  // escaped mount point, xfs
		"/net/src":              false, // on NFS
		"/":                     false,
		"/home/u/repo/vendor/r": true, // beside the NFS mount, not in it
	} {
		if got := mountsEndShort([]byte(table), root); got != want {
			t.Errorf("root %s: short read ends = %v, want %v", root, got, want)
		}
	}
	if mountsEndShort([]byte("garbage without a separator\n"), "/x") {
		t.Error("an unknown mountinfo format must not enable the shortcut")
	}
}

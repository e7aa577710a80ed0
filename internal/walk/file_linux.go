package walk

import (
	"io/fs"
	"time"

	"golang.org/x/sys/unix"
)

// OpenFD opens f with the open(2) flags given and returns the bare
// descriptor, for readers that want no os.File around it; it releases f.
// A file of a walk is not followed if a symlink has taken its place.
func (f File) OpenFD(flags int) (int, error) {
	defer f.Release()
	if f.walked {
		flags |= unix.O_NOFOLLOW
	}
	for {
		var fd int
		var err error
		if f.dir != nil {
			fd, err = unix.Openat(f.dir.fd, f.name, flags, 0)
		} else {
			fd, err = unix.Open(f.Path, flags, 0)
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: f.Path, Err: err}
		}
		return fd, nil
	}
}

// ModTime returns f's modification time, of the file itself if it is a
// symlink (as lstat does); it releases f.
func (f File) ModTime() (time.Time, error) {
	defer f.Release()
	var st unix.Stat_t
	var err error
	if f.dir != nil {
		err = unix.Fstatat(f.dir.fd, f.name, &st, unix.AT_SYMLINK_NOFOLLOW)
	} else {
		err = unix.Lstat(f.Path, &st)
	}
	if err != nil {
		return time.Time{}, &fs.PathError{Op: "lstat", Path: f.Path, Err: err}
	}
	return time.Unix(st.Mtim.Unix()), nil
}

func closeFD(fd int) { unix.Close(fd) }

//go:build !unix

package skills

// openDirectory is 0 where the system has no O_DIRECTORY; reading the
// entries of what was opened fails on anything but a folder.
const openDirectory = 0

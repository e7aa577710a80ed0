//go:build linux && !amd64 && !arm64

package indexfile

// sysFstatat: none here fills a unix.Stat_t as it is (unix.Fstatat
// converts), so the stamper calls unix.Fstatat.
const sysFstatat = 0

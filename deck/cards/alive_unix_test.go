//go:build unix

package cards

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processAlive reports whether pid runs and is not a zombie waiting to be
// reaped (a killed orphan stays one until init collects it).
func processAlive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: signal 0 succeeded
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

package childproc

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// escapeEnv, set, makes the test binary a subreaper that runs, through a
// ward, a shell whose background job leaves its group and clears its
// environment; it prints the job's pid, closes the ward and exits.
const escapeEnv = "INDUSCODE_TEST_ESCAPEE"

// A descendant that escapes with env -i setsid is still killed when the
// ward of a subreaper closes.
func TestSubreaperKillsEscapees(t *testing.T) {
	if os.Getenv(escapeEnv) != "" {
		escapeHelper()
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSubreaperKillsEscapees$")
	cmd.Env = append(os.Environ(), escapeEnv+"=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var pid, start string
	for sc.Scan() {
		if p, s, ok := strings.Cut(sc.Text(), " "); ok && strings.HasPrefix(p, "escapee=") {
			pid, start = strings.TrimPrefix(p, "escapee="), s
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatalf("the helper printed no escapee pid (%q)", pid)
	}
	// SIGKILL was sent before the ward's Close returned; the process is
	// gone or, re-parented to init after the helper exited, a zombie.
	for deadline := time.Now().Add(10 * time.Second); ; {
		if st, ok := stat(pid); !ok || st.start != start || st.zombie {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(n, syscall.SIGKILL)
			t.Fatal("the escapee outlived the session")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func escapeHelper() {
	if err := BecomeSubreaper(); err != nil {
		os.Exit(5)
	}
	w := NewWard("")
	cmd := exec.Command("bash", "-c", `env -i setsid sh -c 'sleep 1000' </dev/null >/dev/null 2>&1 & echo $!`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w.Prepare(cmd)
	var out strings.Builder
	cmd.Stdout = &out
	release, err := w.Start(cmd, true)
	if err != nil {
		os.Exit(6)
	}
	cmd.Wait()
	release()
	// The job is sh, which runs sleep: report the sleep once it runs.
	job, _ := strconv.Atoi(strings.TrimSpace(out.String()))
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for pid, st := range children(job) {
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil && strings.TrimSpace(string(b)) == "sleep" {
				os.Stdout.WriteString("escapee=" + strconv.Itoa(pid) + " " + st.start + "\n")
				w.Close()
				os.Exit(0)
			}
		}
	}
	os.Exit(7)
}

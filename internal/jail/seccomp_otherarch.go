//go:build linux && !amd64 && !arm64

package jail

// No network filter on this architecture: Landlock's TCP rules only.
const seccompArch, nrSocket, nrSocketpair, nrIoctl, nrIOUringSetup = 0, 0, 0, 0, 0

package cli

import "testing"

// serve turns webfetch's private-address refusal on exactly when the
// listen address can be reached from other machines.
func TestLoopbackAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8765", true},
		{"127.3.2.1:80", true},
		{"localhost:9000", true},
		{"LOCALHOST:9000", true},
		{"[::1]:8765", true},
		{"0.0.0.0:8765", false},
		{":8765", false},
		{"[::]:8765", false},
		{"192.168.1.10:8765", false},
		{"example.com:443", false},
		{"garbage", false},
	} {
		if got := loopbackAddr(tc.addr); got != tc.want {
			t.Errorf("loopbackAddr(%q) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

//go:build !unix

package stdioconn

import "os"

// PollableStdin reports false on this system: standard input is read as
// os.Stdin is.
func PollableStdin() (f *os.File, restore func(), ok bool) { return nil, nil, false }

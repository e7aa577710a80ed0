package transcript

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// KeyFile is the file, in the user's config folder
// ($XDG_CONFIG_HOME/indusvx), of the key that signs every transcript line
// this user's indusr writes. A line without a valid signature was written
// by someone else (a file committed to the repository, a copy from another
// machine) and is never sent to a model as history.
const KeyFile = "transcript.key"

// keyHexLen is the key file's exact length: 32 random bytes in hex.
const keyHexLen = 64

// macField is how a signature ends a line: the line's JSON object with
// this member last, the MAC in hex. The signed bytes are the line without
// it, so verifying needs no second encoding of the line.
const macField = `,"mac":"`

// macSuffixLen is the length of the signature member and the closing
// brace at the end of a signed line.
const macSuffixLen = len(macField) + sha256.Size*2 + len(`"}`)

// keyPath is the key file of the user running indusr.
func keyPath() (string, error) {
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		home := os.Getenv("HOME")
		if home == "" {
			return "", errors.New("no home directory and no $XDG_CONFIG_HOME to keep the transcript key in")
		}
		xdg = filepath.Join(home, ".config")
	}
	return filepath.Join(xdg, "indusvx", KeyFile), nil
}

// keys caches the key of each key file this process used (tests move
// $XDG_CONFIG_HOME).
var keys sync.Map // path -> []byte

// userKey returns the user's transcript key, creating it on first use.
func userKey() ([]byte, error) {
	path, err := keyPath()
	if err != nil {
		return nil, err
	}
	if k, ok := keys.Load(path); ok {
		return k.([]byte), nil
	}
	k, err := readKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		k, err = createKey(path)
	}
	if err != nil {
		return nil, err
	}
	keys.Store(path, k)
	return k, nil
}

// readKey reads the key file: a regular file of the user's, not a link,
// holding exactly the key.
func readKey(path string) ([]byte, error) {
	f, err := openKeyFile(path)
	if err != nil {
		if isLinkRefusal(err) {
			return nil, fmt.Errorf("transcript key %s is a symbolic link; it must be a file of yours", path)
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() != keyHexLen {
		return nil, fmt.Errorf("transcript key %s is not a %d-byte file; remove it and a new one is made (conversations signed with it can then no longer be resumed)", path, keyHexLen)
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		return nil, fmt.Errorf("transcript key %s belongs to uid %d, not to you", path, uid)
	}
	b := make([]byte, keyHexLen)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("transcript key %s: %w", path, err)
	}
	k := make([]byte, keyHexLen/2)
	if _, err := hex.Decode(k, b); err != nil {
		return nil, fmt.Errorf("transcript key %s is damaged (%v); remove it and a new one is made", path, err)
	}
	return k, nil
}

// createKey writes a new key to a temporary file and links it into
// place, so a reader never sees half a key and of two processes that
// start at once, the second reads the first's key.
func createKey(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("transcript key: %w", err)
	}
	k := make([]byte, keyHexLen/2)
	rand.Read(k)
	tmp, err := os.CreateTemp(dir, ".transcript-key-*")
	if err != nil {
		return nil, fmt.Errorf("transcript key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(k))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("transcript key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return readKey(path)
	} else if err != nil {
		return nil, fmt.Errorf("transcript key: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return k, nil
}

// mac signs the encoded line of conversation id, given in parts: the id
// is part of what is signed, so a line cannot be moved into another
// conversation.
func mac(key []byte, id string, parts ...[]byte) []byte {
	h := hmac.New(sha256.New, key)
	io.WriteString(h, "indusr transcript line v1\x00")
	io.WriteString(h, id)
	h.Write([]byte{0})
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// sign appends the signature member to the encoded line b (a JSON object
// without one).
func sign(key []byte, id string, b []byte) []byte {
	sum := hex.EncodeToString(mac(key, id, b))
	out := make([]byte, 0, len(b)+macSuffixLen)
	out = append(out, b[:len(b)-1]...)
	out = append(out, macField...)
	out = append(out, sum...)
	return append(out, `"}`...)
}

// verified reports whether the encoded line b of conversation id ends in
// a signature made with key. The signed bytes are b less its signature
// member: whatever else a forger adds changes them.
func verified(key []byte, id string, b []byte) bool {
	n := len(b)
	if n < macSuffixLen+1 || !bytes.HasPrefix(b[n-macSuffixLen:], []byte(macField)) || !bytes.HasSuffix(b, []byte(`"}`)) {
		return false
	}
	got := make([]byte, sha256.Size)
	if _, err := hex.Decode(got, b[n-macSuffixLen+len(macField):n-2]); err != nil {
		return false
	}
	return hmac.Equal(got, mac(key, id, b[:n-macSuffixLen], []byte("}")))
}

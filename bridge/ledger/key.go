package ledger

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// Key identifies one enrolled capability in the ledger. Mint keys with
// [ContentKey] or [ULIDKey]; a string from elsewhere is made a Key only by
// [ParseKey], which checks its shape.
type Key string

// KeyPrefix starts every key.
const KeyPrefix = "bk_"

// contentHexLen is the number of hex digits of SHA-256 a content key keeps:
// 128 bits, a common length for such keys, ample for an in-process
// identity.
const contentHexLen = 32

// ContentKey returns the content-addressed key of a capability: "bk_" and 32
// hex digits of SHA-256 over the canonical JSON of {"name": name, "schema":
// schema}. A missing schema counts as null. The key ignores member order and
// formatting of the schema and changes with any other change to it. A schema
// that is not valid JSON is keyed as a JSON string holding its text.
func ContentKey(name string, schema json.RawMessage) Key {
	canon := []byte("null")
	if len(bytes.TrimSpace(schema)) > 0 {
		c, err := Canonical(schema)
		if err != nil {
			var buf bytes.Buffer
			writeString(&buf, string(schema))
			c = buf.Bytes()
		}
		canon = c
	}
	var identity bytes.Buffer
	identity.Grow(len(canon) + len(name) + 24)
	identity.WriteString(`{"name":`)
	writeString(&identity, name)
	identity.WriteString(`,"schema":`)
	identity.Write(canon)
	identity.WriteByte('}')
	sum := sha256.Sum256(identity.Bytes())
	return Key(KeyPrefix + hex.EncodeToString(sum[:])[:contentHexLen])
}

// ulids mints ULIDs that increase strictly within the process, even within
// one millisecond or when the wall clock steps back.
var ulids = struct {
	sync.Mutex
	entropy *ulid.MonotonicEntropy
	last    ulid.ULID
}{entropy: ulid.Monotonic(rand.Reader, 0)}

// ULIDKey returns a fresh, time-sortable key "bk_<ULID>", for an enrollment
// that must be a distinct event rather than a deduplicated identity. Keys
// minted by one process increase strictly.
func ULIDKey() Key {
	ulids.Lock()
	defer ulids.Unlock()
	ms := ulid.Timestamp(time.Now())
	if last := ulids.last.Time(); ms < last {
		ms = last
	}
	id, err := ulid.New(ms, ulids.entropy)
	for err != nil || id.Compare(ulids.last) <= 0 {
		// The entropy of this millisecond ran out (or the clock stepped
		// back): move to the next millisecond, as the ULID spec allows.
		ms++
		id, err = ulid.New(ms, ulids.entropy)
	}
	ulids.last = id
	return Key(KeyPrefix + id.String())
}

// ParseKey checks that s has the shape of a content key or a ULID key.
func ParseKey(s string) (Key, bool) {
	rest, ok := strings.CutPrefix(s, KeyPrefix)
	if !ok {
		return "", false
	}
	if len(rest) == contentHexLen && isLowerHex(rest) {
		return Key(s), true
	}
	if _, err := ulid.ParseStrict(rest); err == nil {
		return Key(s), true
	}
	return "", false
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

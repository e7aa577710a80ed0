package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Separator joins a server name and a tool name: "<server>__<tool>".
const Separator = "__"

// maxNameLen is the longest tool name the OpenAI, Anthropic and Gemini
// function-calling APIs all accept (their common pattern is
// ^[a-zA-Z0-9_-]{1,64}$).
const maxNameLen = 64

// hashSuffixLen is the number of hex digits of SHA-256 that end a name cut
// to fit maxNameLen: 32 bits tell apart the few tools that share a long
// prefix within one fleet.
const hashSuffixLen = 8

// Qualify returns the name a server's tool is grafted under:
// "<server>__<tool>" with every character outside [a-zA-Z0-9_-] replaced by
// '_'. A result longer than 64 characters is cut and ends with '_' and 8 hex
// digits of a hash of the unmodified "<server>__<tool>", so two long names
// that share a prefix stay apart. Calls are routed by a table from this name
// to the server and its own tool name, never by parsing it.
func Qualify(server, tool string) string {
	full := server + Separator + tool
	name := sanitize(full)
	if len(name) <= maxNameLen {
		return name
	}
	sum := sha256.Sum256([]byte(full))
	keep := maxNameLen - 1 - hashSuffixLen
	return name[:keep] + "_" + hex.EncodeToString(sum[:])[:hashSuffixLen]
}

func sanitize(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	return sb.String()
}

package streamhost

import (
	"encoding/json"
	"fmt"
	"strings"
)

// userMessage is one user message of the app, ready to run.
type userMessage struct {
	uuid   string
	prompt string
	raw    json.RawMessage // the message as the app wrote it, for a replay
	// bad is why the message cannot run; its turn ends in an error
	// result that says so.
	bad error
}

// decodeUser reads a user line: {"type":"user","message":{"role":"user",
// "content": "text" or [blocks]}}. Text blocks are joined; a block the
// conversation cannot carry is refused by name rather than dropped, so
// the app learns its message was not what the model read.
func decodeUser(m inbound) (userMessage, error) {
	u := userMessage{uuid: m.UUID, raw: m.Message}
	if u.uuid == "" {
		u.uuid = newID()
	}
	var msg struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(m.Message, &msg); err != nil || len(m.Message) == 0 {
		return u, fmt.Errorf(`a user message needs "message": {"role": "user", "content": ...}`)
	}
	if msg.Role != "" && msg.Role != "user" {
		return u, fmt.Errorf("a user message has role %q; it must be user", msg.Role)
	}
	var text string
	if json.Unmarshal(msg.Content, &text) == nil {
		u.prompt = text
	} else {
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(msg.Content, &blocks); err != nil {
			return u, fmt.Errorf("a user message's content must be text or a list of content blocks: %v", err)
		}
		var parts []string
		for _, b := range blocks {
			switch b.Type {
			case "text":
				parts = append(parts, b.Text)
			default:
				return u, fmt.Errorf("a user message holds a %q block; indusr takes text blocks only", b.Type)
			}
		}
		u.prompt = strings.Join(parts, "\n\n")
	}
	if strings.TrimSpace(u.prompt) == "" {
		return u, fmt.Errorf("a user message has no text")
	}
	return u, nil
}

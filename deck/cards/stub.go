package cards

import "github.com/indusagi/induscode/tool"

// notConfigured is the result of a card whose host handle is not wired:
// an error the model can read (what is missing, how a host adds it) with
// a JSON block a host can test for.
func notConfigured(card, handle, how string) tool.Result {
	res := tool.Errorf("%s is not configured in this session: no %s was provided. %s", card, handle, how)
	res.Blocks = append(res.Blocks, tool.JSONBlock(map[string]any{
		"error": "not_configured", "tool": card, "handle": handle,
	}))
	return res
}

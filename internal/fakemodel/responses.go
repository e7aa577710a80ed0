package fakemodel

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The Responses API (POST /v1/responses): a stream of typed events, each
// named twice (the SSE event name and the data's "type") and numbered by
// sequence_number; every output item (reasoning, message, function_call)
// is announced by response.output_item.added, filled by its deltas and
// closed by response.output_item.done with its whole content; the stream
// ends with response.completed or response.incomplete, carrying the usage,
// and no [DONE].

// encrypted is the fake's encrypted content of a reasoning item: a
// request that sends the item back must carry it unchanged, as the real
// service decrypts it to restore the model's reasoning.
func encrypted(id string) string {
	sum := sha256.Sum256([]byte("fakemodel reasoning\x00" + id))
	return "gAAAAABo" + base64.StdEncoding.EncodeToString(sum[:])
}

// responsesEvents numbers and names the events of one stream.
type responsesEvents struct {
	s   *sse
	seq int
}

// send writes one event; body is the data's fields after type and
// sequence_number.
func (e *responsesEvents) send(typ, body string) {
	e.s.event(typ, fmt.Sprintf(`{"type":%q,"sequence_number":%d,%s}`, typ, e.seq, body))
	e.seq++
}

// writeResponses streams r as the Responses API does. Thinking is a
// reasoning item whose summary streams as reasoning_summary_text deltas;
// its encrypted content is sent only when the request's include asked for
// "reasoning.encrypted_content", as the service does. redacted_thinking
// has no form here and is left out.
func writeResponses(s *sse, body []byte, r Reply, n int) {
	var req struct {
		Model   string   `json:"model"`
		Include []string `json:"include"`
		Store   *bool    `json:"store"`
	}
	json.Unmarshal(body, &req)
	if r.Model != "" {
		req.Model = r.Model
	}
	withContent := false
	for _, inc := range req.Include {
		withContent = withContent || inc == "reasoning.encrypted_content"
	}
	store := req.Store == nil || *req.Store
	id := fmt.Sprintf("resp_%02dFAKE%s", n, "0123456789abcdef0123456789abcdef")
	created := time.Now().Unix()
	resp := func(status, output, usage, incomplete string) string {
		return fmt.Sprintf(`{"id":%q,"object":"response","created_at":%d,"status":%q,"background":false,"error":null,"incomplete_details":%s,"instructions":null,"max_output_tokens":null,"max_tool_calls":null,"model":%s,"output":%s,"parallel_tool_calls":true,"previous_response_id":null,"prompt_cache_key":null,"reasoning":{"effort":"medium","summary":"auto"},"safety_identifier":null,"service_tier":"default","store":%t,"temperature":1.0,"text":{"format":{"type":"text"},"verbosity":"medium"},"tool_choice":"auto","tools":[],"top_logprobs":0,"top_p":1.0,"truncation":"disabled","usage":%s,"user":null,"metadata":{}}`,
			id, created, status, incomplete, js(req.Model), output, store, usage)
	}
	ev := &responsesEvents{s: s}
	ev.send("response.created", `"response":`+resp("in_progress", "[]", "null", "null"))
	ev.send("response.in_progress", `"response":`+resp("in_progress", "[]", "null", "null"))
	var done []string // the finished items, for response.completed
	out := 0
	for i, b := range r.Blocks {
		var item string
		switch b.Kind {
		case "thinking":
			rid := fmt.Sprintf("rs_%02d%02dFAKE%s", n, i, strings.Repeat("r", 40))
			ev.send("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%q,"type":"reasoning","summary":[]}`, out, rid))
			ev.send("response.reasoning_summary_part.added", fmt.Sprintf(`"item_id":%q,"output_index":%d,"summary_index":0,"part":{"type":"summary_text","text":""}`, rid, out))
			for _, part := range split(b.Text, 24) {
				ev.send("response.reasoning_summary_text.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"summary_index":0,"delta":%s,"obfuscation":"Qx"`, rid, out, js(part)))
			}
			ev.send("response.reasoning_summary_text.done", fmt.Sprintf(`"item_id":%q,"output_index":%d,"summary_index":0,"text":%s`, rid, out, js(b.Text)))
			ev.send("response.reasoning_summary_part.done", fmt.Sprintf(`"item_id":%q,"output_index":%d,"summary_index":0,"part":{"type":"summary_text","text":%s}`, rid, out, js(b.Text)))
			content := "null"
			if withContent {
				content = js(encrypted(rid))
			}
			item = fmt.Sprintf(`{"id":%q,"type":"reasoning","encrypted_content":%s,"summary":[{"type":"summary_text","text":%s}]}`, rid, content, js(b.Text))
		case "redacted_thinking":
			continue
		case "tool_use":
			fid := fmt.Sprintf("fc_%02d%02dFAKE%s", n, i, strings.Repeat("f", 40))
			call := toolID("openai", n, i, b)
			ev.send("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%q,"type":"function_call","status":"in_progress","arguments":"","call_id":%q,"name":%s}`, out, fid, call, js(b.Name)))
			for _, part := range split(b.Input, 7) {
				ev.send("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"delta":%s,"obfuscation":"Qx"`, fid, out, js(part)))
			}
			ev.send("response.function_call_arguments.done", fmt.Sprintf(`"item_id":%q,"output_index":%d,"arguments":%s`, fid, out, js(b.Input)))
			item = fmt.Sprintf(`{"id":%q,"type":"function_call","status":"completed","arguments":%s,"call_id":%q,"name":%s}`, fid, js(b.Input), call, js(b.Name))
		case "text":
			if stopOf(r) != "refusal" {
				item = responsesMessage(ev, n, i, out, b.Text)
				break
			}
			// A refusal is a message whose content part is a refusal.
			mid := fmt.Sprintf("msg_%02d%02dFAKE%s", n, i, strings.Repeat("m", 40))
			ev.send("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%q,"type":"message","status":"in_progress","content":[],"role":"assistant"}`, out, mid))
			ev.send("response.content_part.added", fmt.Sprintf(`"item_id":%q,"output_index":%d,"content_index":0,"part":{"type":"refusal","refusal":""}`, mid, out))
			for _, part := range split(b.Text, 16) {
				ev.send("response.refusal.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"content_index":0,"delta":%s`, mid, out, js(part)))
			}
			ev.send("response.refusal.done", fmt.Sprintf(`"item_id":%q,"output_index":%d,"content_index":0,"refusal":%s`, mid, out, js(b.Text)))
			refusalPart := fmt.Sprintf(`{"type":"refusal","refusal":%s}`, js(b.Text))
			ev.send("response.content_part.done", fmt.Sprintf(`"item_id":%q,"output_index":%d,"content_index":0,"part":%s`, mid, out, refusalPart))
			item = fmt.Sprintf(`{"id":%q,"type":"message","status":"completed","content":[%s],"role":"assistant"}`, mid, refusalPart)
		default:
			item = responsesMessage(ev, n, i, out, b.Text)
		}
		ev.send("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, out, item))
		done = append(done, item)
		out++
		if i == 0 {
			if r.Cut {
				s.cut()
			}
			if r.EndEarly {
				return
			}
			if r.StreamError != "" {
				ev.send("error", `"code":"server_error","message":"The server had an error while processing your request. Sorry about that!","param":null`)
				return
			}
			if !s.hold(r.Hold) {
				return
			}
		}
	}
	if len(r.Blocks) == 0 && !s.hold(r.Hold) {
		return
	}
	in := tokens(r.InputTokens, 42) + r.CacheRead
	outTokens := tokens(r.OutputTokens, 17)
	usage := fmt.Sprintf(`{"input_tokens":%d,"input_tokens_details":{"cached_tokens":%d},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d}`,
		in, r.CacheRead, outTokens, in+outTokens)
	output := "[" + strings.Join(done, ",") + "]"
	if stopOf(r) == "max_tokens" {
		ev.send("response.incomplete", `"response":`+resp("incomplete", output, usage, `{"reason":"max_output_tokens"}`))
		return
	}
	ev.send("response.completed", `"response":`+resp("completed", output, usage, "null"))
}

// responsesMessage streams an output message of text and returns its
// whole item.
func responsesMessage(ev *responsesEvents, n, i, out int, text string) string {
	mid := fmt.Sprintf("msg_%02d%02dFAKE%s", n, i, strings.Repeat("m", 40))
	ev.send("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%q,"type":"message","status":"in_progress","content":[],"role":"assistant"}`, out, mid))
	ev.send("response.content_part.added", fmt.Sprintf(`"item_id":%q,"output_index":%d,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}`, mid, out))
	for _, part := range split(text, 16) {
		ev.send("response.output_text.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"content_index":0,"delta":%s,"logprobs":[],"obfuscation":"Qx"`, mid, out, js(part)))
	}
	ev.send("response.output_text.done", fmt.Sprintf(`"item_id":%q,"output_index":%d,"content_index":0,"text":%s,"logprobs":[]`, mid, out, js(text)))
	textPart := fmt.Sprintf(`{"type":"output_text","annotations":[],"logprobs":[],"text":%s}`, js(text))
	ev.send("response.content_part.done", fmt.Sprintf(`"item_id":%q,"output_index":%d,"content_index":0,"part":%s`, mid, out, textPart))
	return fmt.Sprintf(`{"id":%q,"type":"message","status":"completed","content":[%s],"role":"assistant"}`, mid, textPart)
}

// reasons says whether the fake takes a model for one that reasons: the
// GPT-4 family does not, and refuses to include encrypted reasoning, as
// the service does.
func reasons(model string) bool { return !strings.HasPrefix(model, "gpt-4") }

// responsesItem is an input item of a Responses request as the fake
// reads it.
type responsesItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	ID               string          `json:"id"`
	CallID           string          `json:"call_id"`
	EncryptedContent *string         `json:"encrypted_content"`
	Content          json.RawMessage `json:"content"`
}

// checkResponses applies the Responses API's rules: every function call
// of the input has its output after it and every output its call before
// it; a reasoning item carries the encrypted content the service gave
// out (the fake keeps no items, as with store false) and is followed by
// the item it reasoned toward.
func checkResponses(body []byte) *refusal {
	var req struct {
		Model        string          `json:"model"`
		Include      []string        `json:"include"`
		Input        json.RawMessage `json:"input"`
		Instructions *string         `json:"instructions"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return invalid("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)")
	}
	for _, inc := range req.Include {
		if inc == "reasoning.encrypted_content" && !reasons(req.Model) {
			return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error", param: "include",
				msg: "Encrypted content is not supported with this model."}
		}
	}
	var text string
	if len(req.Input) == 0 || json.Unmarshal(req.Input, &text) == nil {
		return nil
	}
	var items []responsesItem
	if err := json.Unmarshal(req.Input, &items); err != nil {
		return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error", code: "invalid_type",
			msg: "Invalid type for 'input': expected one of a string or an array of input items."}
	}
	calls := map[string]bool{}
	for i, it := range items {
		switch it.Type {
		case "function_call":
			calls[it.CallID] = true
			answered := false
			for _, later := range items[i+1:] {
				answered = answered || (later.Type == "function_call_output" && later.CallID == it.CallID)
			}
			if !answered {
				return invalid("No tool output found for function call %s.", it.CallID)
			}
		case "function_call_output":
			if !calls[it.CallID] {
				return invalid("No tool call found for function call output with call_id %s.", it.CallID)
			}
		case "reasoning":
			switch {
			case it.EncryptedContent == nil || *it.EncryptedContent == "":
				return &refusal{status: http.StatusNotFound, typ: "invalid_request_error",
					msg: fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", it.ID)}
			case *it.EncryptedContent != encrypted(it.ID):
				return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error", code: "invalid_encrypted_content",
					msg: "The encrypted content for item " + it.ID + " could not be verified."}
			case i == len(items)-1:
				return invalid("Item '%s' of type 'reasoning' was provided without its required following item.", it.ID)
			}
		case "message", "":
			if it.Role == "" {
				return invalid("Invalid value for 'input[%d]': an item needs a type or a role.", i)
			}
		}
	}
	return nil
}

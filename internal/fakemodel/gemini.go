package fakemodel

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Gemini's API (POST /v1beta/models/{model}:streamGenerateContent?alt=sse):
// each SSE event is a whole GenerateContentResponse ("data: {...}" and a
// blank line, in CRLF), a candidate's content holding the parts of that
// piece: text, thought text ("thought": true), or a function call whole,
// its arguments an object, never split. The last piece carries the
// finishReason and the full usageMetadata; there is no closing event.

// thoughtSignature is the fake's signature of a function call, as Gemini
// signs the first function call of each step of a turn: the request that
// sends the step back must carry it.
func thoughtSignature(name string) string {
	sum := sha256.Sum256([]byte("fakemodel thought\x00" + name))
	return "CiQB" + base64.StdEncoding.EncodeToString(sum[:])
}

// geminiStatus is the status name Gemini's errors carry for an HTTP
// status.
func geminiStatus(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	}
	return "INTERNAL"
}

// writeGeminiError answers as Gemini fails a request. A 529 (Anthropic's
// overload) is Gemini's 503; a retry-after is Gemini's RetryInfo detail
// (the service sends no header).
func writeGeminiError(w http.ResponseWriter, code int, msg, retryAfter string) {
	if code == 529 {
		code, msg = http.StatusServiceUnavailable, "The model is overloaded. Please try again later."
	}
	details := ""
	if retryAfter != "" {
		details = fmt.Sprintf(`,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"%ss"}]`, retryAfter)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	var m strings.Builder
	enc := json.NewEncoder(&m)
	enc.SetEscapeHTML(false)
	enc.Encode(msg)
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%s,"status":%q%s}}`, code, strings.TrimSpace(m.String()), geminiStatus(code), details)
}

// writeGemini streams r as Gemini does: text in pieces, thinking as
// thought parts, function calls whole (a run of them in one event) with
// the first of the reply signed. The last event carries the finish
// reason and the whole usage. Input that is not a JSON object cannot
// travel in Gemini's wire (the arguments are an object); it is sent as a
// string under "input".
func writeGemini(s *sse, model string, r Reply, n int) {
	rid := fmt.Sprintf("FAKE%02dresponseid0123", n)
	in := tokens(r.InputTokens, 42) + r.CacheRead
	out := tokens(r.OutputTokens, 17)
	chunk := func(parts []string, last bool) {
		finish := ""
		usage := fmt.Sprintf(`"usageMetadata":{"promptTokenCount":%d,"totalTokenCount":%d,"promptTokensDetails":[{"modality":"TEXT","tokenCount":%d}]}`, in, in, in)
		if last {
			finish = `,"finishReason":` + js(geminiFinish(stopOf(r)))
			cached := ""
			if r.CacheRead > 0 {
				cached = fmt.Sprintf(`,"cachedContentTokenCount":%d`, r.CacheRead)
			}
			usage = fmt.Sprintf(`"usageMetadata":{"promptTokenCount":%d,"candidatesTokenCount":%d,"totalTokenCount":%d%s,"promptTokensDetails":[{"modality":"TEXT","tokenCount":%d}]}`, in, out, in+out, cached, in)
		}
		if len(parts) == 0 {
			parts = []string{`{"text":""}`}
		}
		s.raw(fmt.Sprintf("data: {\"candidates\":[{\"content\":{\"parts\":[%s],\"role\":\"model\"}%s,\"index\":0}],%s,\"modelVersion\":%s,\"responseId\":%q}\r\n\r\n",
			strings.Join(parts, ","), finish, usage, js(model), rid))
	}
	var events [][]string
	firstEnd := -1 // the event that completes the first block
	signed, lastWasCall := false, false
	for i, b := range r.Blocks {
		switch b.Kind {
		case "thinking":
			for _, piece := range split(b.Text, 24) {
				events = append(events, []string{fmt.Sprintf(`{"text":%s,"thought":true}`, js(piece))})
			}
		case "redacted_thinking":
		case "tool_use":
			args := b.Input
			if !json.Valid([]byte(args)) || !strings.HasPrefix(strings.TrimSpace(args), "{") {
				args = fmt.Sprintf(`{"input":%s}`, js(b.Input))
			}
			part := fmt.Sprintf(`{"functionCall":{"name":%s,"args":%s}`, js(b.Name), args)
			if !signed {
				part += fmt.Sprintf(`,"thoughtSignature":%q`, thoughtSignature(b.Name))
				signed = true
			}
			if lastWasCall {
				events[len(events)-1] = append(events[len(events)-1], part+"}")
			} else {
				events = append(events, []string{part + "}"})
			}
		default:
			for _, piece := range split(b.Text, 16) {
				events = append(events, []string{fmt.Sprintf(`{"text":%s}`, js(piece))})
			}
		}
		lastWasCall = b.Kind == "tool_use"
		if i == 0 {
			firstEnd = len(events) - 1
		}
	}
	pause := r.StreamError != "" || r.Hold != nil || r.Cut || r.EndEarly
	for j, ev := range events {
		last := j == len(events)-1 && !(pause && j == firstEnd)
		chunk(ev, last)
		if j != firstEnd {
			continue
		}
		if r.Cut {
			s.cut()
		}
		if r.EndEarly {
			return
		}
		if r.StreamError != "" {
			s.raw(`data: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}` + "\r\n\r\n")
			return
		}
		if !s.hold(r.Hold) {
			return
		}
		if j == len(events)-1 {
			chunk(nil, true)
		}
	}
	if len(events) == 0 {
		if !s.hold(r.Hold) {
			return
		}
		chunk(nil, true)
	}
}

func geminiFinish(stop string) string {
	switch stop {
	case "max_tokens":
		return "MAX_TOKENS"
	case "refusal":
		return "SAFETY"
	}
	return "STOP"
}

// geminiPart is a part of a request's content as the fake reads it.
type geminiPart struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		Name string `json:"name"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		Name string `json:"name"`
	} `json:"functionResponse"`
	ThoughtSignature string `json:"thoughtSignature"`
}

// checkGemini applies Gemini's rules to a request: roles user and model;
// a turn of function calls comes after the user's turn or a turn of
// function responses and is answered by as many responses right after
// it; in the current turn (since the user's last text), the first
// function call of each step carries the thought signature it came with.
func checkGemini(body []byte) *refusal {
	var req struct {
		Contents []struct {
			Role  string       `json:"role"`
			Parts []geminiPart `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return invalid("Invalid JSON payload received. %v", err)
	}
	if len(req.Contents) == 0 {
		return invalid("* GenerateContentRequest.contents: contents is not specified\n")
	}
	count := func(parts []geminiPart, calls bool) int {
		n := 0
		for _, p := range parts {
			if (calls && p.FunctionCall != nil) || (!calls && p.FunctionResponse != nil) {
				n++
			}
		}
		return n
	}
	turnStart := 0 // the first content of the current turn
	for i, c := range req.Contents {
		if c.Role != "user" && c.Role != "model" {
			return invalid("Please use a valid role: user, model.")
		}
		if len(c.Parts) == 0 {
			return invalid("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.\n", i)
		}
		if c.Role == "user" && count(c.Parts, false) == 0 {
			turnStart = i
		}
		calls := count(c.Parts, true)
		if calls > 0 {
			if i == 0 || req.Contents[i-1].Role != "user" {
				return invalid("Please ensure that function call turn comes immediately after a user turn or after a function response turn.")
			}
			if i+1 < len(req.Contents) && count(req.Contents[i+1].Parts, false) != calls {
				return invalid("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
			}
		}
		if count(c.Parts, false) > 0 && (i == 0 || count(req.Contents[i-1].Parts, true) == 0) {
			return invalid("Please ensure that function response turn comes immediately after a function call turn.")
		}
	}
	for i := turnStart; i < len(req.Contents); i++ {
		for j, p := range req.Contents[i].Parts {
			if p.FunctionCall == nil {
				continue
			}
			switch {
			case p.ThoughtSignature == "":
				return invalid("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", p.FunctionCall.Name, j+1)
			case p.ThoughtSignature != thoughtSignature(p.FunctionCall.Name):
				return invalid("Corrupted thought signature.")
			}
			break // only the first call of a step is signed
		}
	}
	return nil
}

package fakemodel

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// Anthropic's models behind the clouds. Amazon Bedrock takes the Messages
// API's body (no model, no stream: the path says them, and the body must
// carry anthropic_version) at POST /model/{model}/invoke-with-response-
// stream and streams each event as an AWS event-stream frame whose
// payload holds the event's JSON in base64. Google Vertex AI takes it (no
// model) at POST /v1/projects/{project}/locations/{region}/publishers/
// anthropic/models/{model}:streamRawPredict and streams server-sent
// events as Anthropic does. Each refuses a request without its
// credentials: a SigV4 signature for the bedrock service (or a Bedrock
// API key as a bearer token), an OAuth token that the fake's own token
// endpoint (POST /token, where a service account's token_uri can point)
// minted.

// TokenPath is where the fake mints Google OAuth tokens: a service
// account key whose token_uri is URL+TokenPath gets its tokens here.
const TokenPath = "/token"

// cloudRoutes adds the clouds' paths to mux.
func (s *Server) cloudRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /model/{model}/invoke-with-response-stream", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, "bedrock") })
	mux.HandleFunc("POST /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{call}", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, "vertex") })
	mux.HandleFunc("POST "+TokenPath, s.mintToken)
}

// mintToken answers an OAuth token request (a service account's signed
// JWT, or a refresh token) with a new access token.
func (s *Server) mintToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") == "" {
		http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.tokens = append(s.tokens, fmt.Sprintf("ya29.fake-%02d", len(s.tokens)))
	tok := s.tokens[len(s.tokens)-1]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"access_token":%q,"expires_in":3599,"token_type":"Bearer"}`, tok)
}

// cloudModel returns the model a cloud's path names.
func cloudModel(api string, r *http.Request) string {
	if api == "vertex" {
		model, _, _ := strings.Cut(r.PathValue("call"), ":")
		return model
	}
	return r.PathValue("model")
}

// checkCloud applies what the cloud checks before Anthropic's rules: its
// credentials, its path and the body's shape.
func (s *Server) checkCloud(api string, r *http.Request, body []byte) *refusal {
	auth := r.Header.Get("Authorization")
	switch api {
	case "bedrock":
		signed := strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=") && strings.Contains(auth, "/bedrock/aws4_request") &&
			r.Header.Get("X-Amz-Date") != ""
		if !signed && !strings.HasPrefix(auth, "Bearer ") {
			return &refusal{status: http.StatusForbidden, typ: "AccessDeniedException", msg: "Missing Authentication Token"}
		}
	case "vertex":
		tok, ok := strings.CutPrefix(auth, "Bearer ")
		s.mu.Lock()
		minted := ok && contains(s.tokens, tok)
		s.mu.Unlock()
		if !minted {
			return &refusal{status: http.StatusUnauthorized, typ: "UNAUTHENTICATED",
				msg: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."}
		}
		if _, spec, _ := strings.Cut(r.PathValue("call"), ":"); spec != "streamRawPredict" && spec != "rawPredict" {
			return &refusal{status: http.StatusNotFound, typ: "NOT_FOUND", msg: "method " + spec + " not found"}
		}
	}
	if r.Header.Get("X-Api-Key") != "" {
		// Not a refusal of the cloud's, but a leak: Anthropic's key must
		// never travel to another company's endpoint.
		return &refusal{status: http.StatusBadRequest, typ: "ValidationException", msg: "fakemodel: an x-api-key header was sent to " + api}
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal(body, &v); err != nil {
		return &refusal{status: http.StatusBadRequest, typ: "ValidationException", msg: "Malformed input request: " + err.Error()}
	}
	if _, ok := v["anthropic_version"]; !ok {
		return &refusal{status: http.StatusBadRequest, typ: "ValidationException", msg: "Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again."}
	}
	for _, k := range []string{"model", "stream"} {
		if _, ok := v[k]; ok && (api == "bedrock" || k == "model") {
			return &refusal{status: http.StatusBadRequest, typ: "ValidationException", msg: "Malformed input request: #: extraneous key [" + k + "] is not permitted, please reformat your input and try again."}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// bedrockErrorTypes are Bedrock's exception names by status.
var bedrockErrorTypes = map[int]string{400: "ValidationException", 403: "AccessDeniedException", 404: "ResourceNotFoundException",
	408: "ModelTimeoutException", 424: "ModelErrorException", 429: "ThrottlingException", 500: "InternalServerException",
	503: "ServiceUnavailableException"}

// writeCloudError writes a failed answer as the cloud does: Bedrock's
// {"message"} with the exception in x-amzn-ErrorType; Vertex's Google
// error for its own refusals (quota, credentials) and Anthropic's body
// for the model's.
func writeCloudError(w http.ResponseWriter, api string, status int, typ, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	if api == "bedrock" {
		if typ == "" || strings.HasSuffix(typ, "_error") {
			typ = bedrockErrorTypes[status]
		}
		w.Header().Set("X-Amzn-Errortype", typ+":http://internal.amazon.com/coral/com.amazon.bedrock/")
		w.Header().Set("X-Amzn-Requestid", "00000000-fake-0000-0000-000000000000")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"message":%s}`, js(msg))
		return
	}
	google := map[int]string{401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}[status]
	if google != "" {
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"code":%d,"message":%s,"status":%q}}`, status, js(msg), google)
		return
	}
	if typ == "" || !strings.HasSuffix(typ, "_error") {
		typ = "invalid_request_error"
		if status >= 500 {
			typ = "api_error"
		}
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%s}}`, typ, js(msg))
}

// bedrockFrames writes Anthropic's stream events as Bedrock's event
// stream: each a "chunk" event whose payload carries the event's JSON in
// base64; an error event becomes an exception message. Bedrock sends no
// pings.
type bedrockFrames struct {
	enc *eventstream.Encoder
}

func (b *bedrockFrames) frame(s *sse, name, data string) {
	var msg eventstream.Message
	switch name {
	case "ping":
		return
	case "error":
		var e struct {
			Error struct{ Type, Message string } `json:"error"`
		}
		json.Unmarshal([]byte(data), &e)
		exception := map[string]string{"overloaded_error": "serviceUnavailableException", "rate_limit_error": "throttlingException"}[e.Error.Type]
		if exception == "" {
			exception = "modelStreamErrorException"
		}
		msg.Headers = eventstream.Headers{
			{Name: ":message-type", Value: eventstream.StringValue("exception")},
			{Name: ":exception-type", Value: eventstream.StringValue(exception)},
			{Name: ":content-type", Value: eventstream.StringValue("application/json")},
		}
		msg.Payload = []byte(fmt.Sprintf(`{"message":%s}`, js(e.Error.Message)))
	default:
		msg.Headers = eventstream.Headers{
			{Name: ":event-type", Value: eventstream.StringValue("chunk")},
			{Name: ":content-type", Value: eventstream.StringValue("application/json")},
			{Name: ":message-type", Value: eventstream.StringValue("event")},
		}
		msg.Payload = []byte(fmt.Sprintf(`{"bytes":%q,"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"}`, base64.StdEncoding.EncodeToString([]byte(data))))
	}
	b.enc.Encode(s.w, msg)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

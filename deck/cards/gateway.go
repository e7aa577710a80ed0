package cards

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// gatewayTimeout bounds one gateway call: SaaS APIs answer in seconds,
// and one that takes longer should not hold the agent for minutes.
const gatewayTimeout = 60 * time.Second

// maxGatewayAnswer bounds what is read from the gateway.
const maxGatewayAnswer = 8 << 20

// HTTPGateway is a [SaasGateway] that speaks the JSON contract described
// in the package documentation to a gateway service at URL.
type HTTPGateway struct {
	URL    string       // base URL; /discover and /execute are appended
	Token  string       // sent as "Authorization: Bearer <Token>" when set
	Client *http.Client // nil means a client with a 60 s timeout
}

var _ SaasGateway = (*HTTPGateway)(nil)

// Discover lists the gateway's actions matching query.
func (g *HTTPGateway) Discover(ctx context.Context, query string) ([]SaasAction, error) {
	var ans struct {
		Actions *[]SaasAction `json:"actions"`
	}
	if err := g.post(ctx, "discover", map[string]any{"query": query}, &ans); err != nil {
		return nil, err
	}
	if ans.Actions == nil {
		return nil, errors.New(`the gateway's answer has no "actions" list`)
	}
	return *ans.Actions, nil
}

// Execute runs the action slug with params and returns its result.
func (g *HTTPGateway) Execute(ctx context.Context, slug string, params json.RawMessage) (json.RawMessage, error) {
	var ans struct {
		Result json.RawMessage `json:"result"`
	}
	if err := g.post(ctx, "execute", map[string]any{"slug": slug, "params": params}, &ans); err != nil {
		return nil, err
	}
	if ans.Result == nil {
		return nil, errors.New(`the gateway's answer has no "result"`)
	}
	return ans.Result, nil
}

func (g *HTTPGateway) post(ctx context.Context, op string, body any, into any) error {
	if g.URL == "" {
		return errors.New("the gateway has no URL; set HTTPGateway.URL")
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(g.URL, "/")+"/"+op, bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("gateway URL %q: %w", g.URL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if g.Token != "" {
		req.Header.Set("Authorization", "Bearer "+g.Token)
	}
	client := g.Client
	if client == nil {
		client = &http.Client{Timeout: gatewayTimeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach the gateway: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxGatewayAnswer))
	if err != nil {
		return fmt.Errorf("reading the gateway's answer: %w", err)
	}
	var failure struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(raw, &failure)
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("the gateway refused the token (HTTP %d%s); check the configured token", resp.StatusCode, suffix(failure.Error))
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("the gateway answered HTTP %d%s", resp.StatusCode, suffix(failure.Error))
	case failure.Error != "":
		return errors.New(failure.Error)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("the gateway's answer is not the JSON expected: %v", err)
	}
	return nil
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

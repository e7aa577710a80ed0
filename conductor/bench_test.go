package conductor_test

import (
	"context"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/provider"
	adapter "github.com/indusagi/induscode/provider/anthropic"
	"github.com/indusagi/induscode/provider/connect"
)

// The loop's cost per turn against the raw SDK call it makes, both
// against the same fake server, with the same system prompt and tools:
//
//	go test -run '^$' -bench 'Turn|RawSDK' -benchtime 2000x -count 6 ./conductor/
//
// BenchmarkTurn / BenchmarkRawSDK is the overhead ratio (target 1.05).
func BenchmarkTurn(b *testing.B) {
	srv, _ := fakemodel.Listen()
	defer srv.Close()
	srv.Respond(func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Say("ok") })
	dir := b.TempDir()
	o := conductor.Options{Model: "anthropic/claude-sonnet-4-5", Ephemeral: true,
		Open: connect.Opener(connect.Config{APIKey: "k", BaseURL: srv.URL, MaxRetries: -1})}
	o.Session.Dir, o.Session.NoMCP, o.Session.NoAddons = dir, true, true
	c, err := conductor.Open(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%50 == 0 { // keep the conversation short, as the raw call's is
			b.StopTimer()
			c.Close()
			if c, err = conductor.Open(ctx, o); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if res, err := c.Run(ctx, "hi"); err != nil || res.IsError {
			b.Fatal(res, err)
		}
	}
}

func BenchmarkRawSDK(b *testing.B) {
	srv, _ := fakemodel.Listen()
	defer srv.Close()
	srv.Respond(func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Say("ok") })
	dir := b.TempDir()
	o := conductor.Options{Model: "anthropic/claude-sonnet-4-5", Ephemeral: true,
		Open: connect.Opener(connect.Config{APIKey: "k", BaseURL: srv.URL, MaxRetries: -1})}
	o.Session.Dir, o.Session.NoMCP, o.Session.NoAddons = dir, true, true
	c, err := conductor.Open(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	tools := c.Tools()
	system := conductor.Briefing(dir, c.Session().Box().Specs(), "")
	c.Close()
	client := anthropic.NewClient(option.WithAPIKey("k"), option.WithBaseURL(srv.URL), option.WithMaxRetries(0))
	ctx := context.Background()
	var msgs []provider.Message
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%50 == 0 {
			msgs = nil
		}
		msgs = append(msgs, provider.UserText("hi"))
		params, err := adapter.Params(provider.Request{Model: "claude-sonnet-4-5", System: system, Messages: msgs, Tools: tools})
		if err != nil {
			b.Fatal(err)
		}
		stream := client.Messages.NewStreaming(ctx, params)
		var m anthropic.Message
		for stream.Next() {
			m.Accumulate(stream.Current())
		}
		if err := stream.Err(); err != nil {
			b.Fatal(err)
		}
		stream.Close()
		msgs = append(msgs, adapter.FromMessage(&m).Message)
	}
}

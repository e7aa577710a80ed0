package stdioconn

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pipeConn is a connection under test with the peer's ends of its pipes.
type pipeConn struct {
	conn interface {
		Read(context.Context) (jsonrpc.Message, error)
	}
	send    io.WriteCloser // what the peer writes
	replies *bufio.Reader  // what the connection wrote
	close   func()
}

func open(t *testing.T, o Options) *pipeConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := New(inR, outW, o)
	p := &pipeConn{conn: c, send: inW, replies: bufio.NewReader(outR)}
	p.close = func() {
		c.Close()
		inW.Close()
		outR.Close()
	}
	t.Cleanup(p.close)
	return p
}

func (p *pipeConn) write(t *testing.T, line string) {
	t.Helper()
	go io.WriteString(p.send, line) // the pipe blocks until read
}

func (p *pipeConn) read(t *testing.T) (jsonrpc.Message, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return p.conn.Read(ctx)
}

func (p *pipeConn) reply(t *testing.T) map[string]any {
	t.Helper()
	ch := make(chan string, 1)
	go func() { l, _ := p.replies.ReadString('\n'); ch <- l }()
	select {
	case l := <-ch:
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("reply %q is not JSON: %v", l, err)
		}
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no reply within 5s")
	}
	return nil
}

// forEachReader runs f with a reader goroutine of the connection's own and
// with reads on the caller's goroutine (an io.Pipe, like an os.Pipe, is
// woken by Close).
func forEachReader(t *testing.T, f func(t *testing.T, unblocks bool)) {
	for _, unblocks := range []bool{false, true} {
		t.Run(fmt.Sprintf("CloseUnblocks=%v", unblocks), func(t *testing.T) { f(t, unblocks) })
	}
}

// Each kind of message decodes into the SDK's own types, with exactly the
// fields the SDK's decoder would give it.
func TestDecodesMessages(t *testing.T) {
	for _, tt := range []struct {
		line  string
		check func(jsonrpc.Message) bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read"}}`, func(m jsonrpc.Message) bool {
			r, ok := m.(*jsonrpc.Request)
			return ok && r.Method == "tools/call" && r.ID.Raw() == int64(1) && string(r.Params) == `{"name":"read"}`
		}},
		{`{"jsonrpc":"2.0","id":"a-1","method":"ping"}`, func(m jsonrpc.Message) bool {
			r, ok := m.(*jsonrpc.Request)
			return ok && r.ID.Raw() == "a-1" && r.Params == nil && r.IsCall()
		}},
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":null}`, func(m jsonrpc.Message) bool {
			r, ok := m.(*jsonrpc.Request)
			return ok && !r.IsCall() && r.Params == nil
		}},
		{`{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`, func(m jsonrpc.Message) bool {
			r, ok := m.(*jsonrpc.Response)
			return ok && r.ID.Raw() == int64(3) && string(r.Result) == `{"content":[]}` && r.Error == nil
		}},
		{`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no such method","data":{"m":"x"}}}`, func(m jsonrpc.Message) bool {
			r, ok := m.(*jsonrpc.Response)
			var e *jsonrpc.Error
			return ok && errors.As(r.Error, &e) && e.Code == -32601 && e.Message == "no such method" && string(e.Data) == `{"m":"x"}`
		}},
		{"  \t{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\r", func(m jsonrpc.Message) bool {
			r, ok := m.(*jsonrpc.Request)
			return ok && r.ID.Raw() == int64(5)
		}},
	} {
		msg, _, code, why := decode([]byte(strings.TrimSpace(tt.line)))
		if why != "" || !tt.check(msg) {
			t.Errorf("%s: got %#v (code %d, %q)", tt.line, msg, code, why)
		}
	}
}

// What is wrong with a line is said in the error, with the JSON-RPC code
// that fits it.
func TestRefusesBadLines(t *testing.T) {
	for _, tt := range []struct {
		line string
		code int64
		has  string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, jsonrpc.CodeParseError, "not a JSON-RPC message"},
		{`hello`, jsonrpc.CodeParseError, "not a JSON-RPC message"},
		{`42`, jsonrpc.CodeParseError, "not a JSON-RPC message"},
		{`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, "batches are not supported"},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, jsonrpc.CodeInvalidRequest, `must be "2.0", not "1.0"`},
		{`{"id":4,"method":"ping"}`, jsonrpc.CodeInvalidRequest, `must be "2.0", not absent`},
		{`{"JSONRPC":"2.0","id":4,"method":"ping"}`, jsonrpc.CodeInvalidRequest, `must be "2.0"`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "number or a string"},
		{`{"jsonrpc":"2.0","id":1,"method":7}`, jsonrpc.CodeInvalidRequest, `"method" must be a string`},
		{`{"jsonrpc":"2.0","result":{}}`, jsonrpc.CodeInvalidRequest, "needs the id"},
		{`{"jsonrpc":"2.0","id":2,"error":"bad"}`, jsonrpc.CodeInvalidRequest, `"error" must be an object`},
	} {
		msg, _, code, why := decode([]byte(tt.line))
		if msg != nil || code != tt.code || !strings.Contains(why, tt.has) {
			t.Errorf("%s: got %v, code %d, %q; want code %d with %q", tt.line, msg, code, why, tt.code, tt.has)
		}
	}
}

// A member name in another case is not that member: {"Method":…} is not a
// request, as it is not for the SDK.
func TestMemberNamesAreExact(t *testing.T) {
	msg, _, _, why := decode([]byte(`{"jsonrpc":"2.0","id":1,"Method":"tools/call","result":{}}`))
	if r, ok := msg.(*jsonrpc.Response); why != "" || !ok || string(r.Result) != "{}" {
		t.Errorf("got %#v, %q; want a response", msg, why)
	}
}

// On the server's side a bad line is answered with an error that has a
// null id, and the next message is read as usual.
func TestServerAnswersBadLinesAndGoesOn(t *testing.T) {
	forEachReader(t, func(t *testing.T, unblocks bool) {
		p := open(t, Options{AnswerBadLines: true, MaxLine: 1 << 20, CloseUnblocks: unblocks})
		// A read is pending all along, as the SDK keeps one: without a
		// reader goroutine, bad lines are answered while Read reads.
		type got struct {
			msg jsonrpc.Message
			err error
		}
		msgs := make(chan got, 4)
		go func() {
			for {
				msg, err := p.conn.Read(context.Background())
				msgs <- got{msg, err}
				if err != nil {
					return
				}
			}
		}()
		next := func() (jsonrpc.Message, error) {
			t.Helper()
			select {
			case g := <-msgs:
				return g.msg, g.err
			case <-time.After(5 * time.Second):
				t.Fatal("no message within 5s")
			}
			return nil, nil
		}
		p.write(t, "not json\n")
		if m := p.reply(t); m["id"] != nil || m["error"].(map[string]any)["code"] != float64(jsonrpc.CodeParseError) {
			t.Errorf("reply to a bad line: %v", m)
		}
		// A line over the limit, longer than the read buffer too.
		p.write(t, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`+strings.Repeat("a", 2<<20)+`"}}`+"\n")
		if m := p.reply(t); !strings.Contains(m["error"].(map[string]any)["message"].(string), "1 MiB limit") {
			t.Errorf("reply to a long line: %v", m)
		}
		p.write(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
		msg, err := next()
		if r, ok := msg.(*jsonrpc.Request); err != nil || !ok || r.ID.Raw() != int64(2) {
			t.Errorf("after the bad lines: %v, %v", msg, err)
		}
		// A line a little longer than the read buffer but under the limit is
		// taken whole.
		long := strings.Repeat("b", 100<<10)
		p.write(t, `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"`+long+`"}}`+"\n")
		msg, err = next()
		if r, ok := msg.(*jsonrpc.Request); err != nil || !ok || !strings.Contains(string(r.Params), long) {
			t.Errorf("a 100 KiB line: %v", err)
		}
	})
}

// On the client's side a bad line ends the connection with an error that
// quotes it, so calls in flight fail at once.
func TestClientEndsOnABadLine(t *testing.T) {
	forEachReader(t, func(t *testing.T, unblocks bool) {
		p := open(t, Options{CloseUnblocks: unblocks})
		p.write(t, `{"jsonrpc":"2.0","id":{},"result":{}}`+"\n")
		_, err := p.read(t)
		if err == nil || !strings.Contains(err.Error(), "number or a string") || !strings.Contains(err.Error(), `the line: "{\"jsonrpc`) {
			t.Errorf("a bad line on the client's side: %v", err)
		}
	})
}

// The end of input is the end of the connection; a closed connection
// reads EOF at once.
func TestEndOfInput(t *testing.T) {
	forEachReader(t, func(t *testing.T, unblocks bool) {
		p := open(t, Options{CloseUnblocks: unblocks})
		p.write(t, `{"jsonrpc":"2.0","id":1,"result":{}}`) // no newline: the last line
		go func() { time.Sleep(50 * time.Millisecond); p.send.Close() }()
		if msg, err := p.read(t); err != nil || msg == nil {
			t.Fatalf("the last line without a newline: %v, %v", msg, err)
		}
		if _, err := p.read(t); !errors.Is(err, io.EOF) {
			t.Errorf("after the end of input: %v", err)
		}
		q := open(t, Options{CloseUnblocks: unblocks})
		q.close()
		if _, err := q.read(t); !errors.Is(err, io.EOF) {
			t.Errorf("after Close: %v", err)
		}
	})
}

// Written messages are one line each.
func TestWritesLines(t *testing.T) {
	inR, _ := io.Pipe()
	outR, outW := io.Pipe()
	c := New(inR, outW, Options{})
	defer c.Close()
	id, _ := jsonrpc.MakeID(float64(9))
	go c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: json.RawMessage(`{"a":"b\nc"}`)})
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || line != `{"jsonrpc":"2.0","id":9,"result":{"a":"b\nc"}}`+"\n" {
		t.Errorf("wrote %q, %v", line, err)
	}
}

// No line makes decode panic, and what it accepts the SDK accepts too.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read"}}`,
		`{"jsonrpc":"2.0","id":"x","result":null}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}`,
		`[1]`, `{}`, `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		line = []byte(strings.TrimSpace(string(line)))
		if len(line) == 0 {
			return
		}
		msg, _, _, why := decode(line)
		if why != "" {
			return
		}
		if _, err := jsonrpc.DecodeMessage(line); err != nil {
			t.Errorf("decode took %q, which the SDK refuses: %v", line, err)
		}
		if _, err := jsonrpc.EncodeMessage(msg); err != nil {
			t.Errorf("a decoded message does not encode again: %v", err)
		}
	})
}

// Package cdp drives a headless Chromium over the DevTools protocol, for the tests
// and tools that load pages live and replayed (crawltest/archivetest,
// crawltest/replaycheck).
package cdp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Browser is a headless Chromium driven through --remote-debugging-pipe: requests go
// to its file descriptor 3 and answers and events come from its descriptor 4, each
// message a JSON object ended by a NUL byte. It is safe for simultaneous use by
// multiple goroutines.
type Browser struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader

	mu       sync.Mutex
	nextID   int
	waiting  map[int]chan reply
	handlers map[string]func(method string, params json.RawMessage)
	done     chan struct{}
	err      error
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Flags are the command-line flags Start gives Chromium before its own: headless, no
// sandbox (tests run as root), no GPU, and no network of its own (every background
// connection is refused on the machines this runs on).
var Flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--mute-audio",
}

// Start starts Chromium at path with a new profile in profileDir, Flags and then
// extra (such as "--window-size=1280,900" or "--host-resolver-rules=…"). Chromium's
// own output goes to stderr.
func Start(path, profileDir string, extra []string, stderr io.Writer) (*Browser, error) {
	toBrowserR, toBrowserW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromBrowserR, fromBrowserW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	args := append(append(append([]string{}, Flags...), extra...),
		"--user-data-dir="+profileDir, "--remote-debugging-pipe", "about:blank")
	cmd := exec.Command(path, args...)
	cmd.ExtraFiles = []*os.File{toBrowserR, fromBrowserW} // fd 3 and fd 4
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	toBrowserR.Close()
	fromBrowserW.Close()
	b := &Browser{cmd: cmd, in: toBrowserW, out: bufio.NewReader(fromBrowserR),
		waiting: map[int]chan reply{}, handlers: map[string]func(string, json.RawMessage){},
		done: make(chan struct{})}
	go b.read()
	return b, nil
}

// read dispatches answers to their callers and events to their session's handler.
func (b *Browser) read() {
	defer close(b.done)
	for {
		msg, err := b.out.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.err = fmt.Errorf("devtools pipe: %w", err)
			b.mu.Unlock()
			return
		}
		var m struct {
			ID        int             `json:"id"`
			Method    string          `json:"method"`
			Params    json.RawMessage `json:"params"`
			SessionID string          `json:"sessionId"`
			reply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID == 0 {
			h := b.handlers[m.SessionID]
			b.mu.Unlock()
			if h != nil && m.Method != "" {
				h(m.Method, m.Params)
			}
			continue
		}
		ch := b.waiting[m.ID]
		delete(b.waiting, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.reply
		}
	}
}

// OnEvent has h called with every event of session ("" for the browser's own), in
// the order they come, from the goroutine reading the pipe: h must not block nor
// call the browser. A nil h stops the calls.
func (b *Browser) OnEvent(session string, h func(method string, params json.RawMessage)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if h == nil {
		delete(b.handlers, session)
		return
	}
	b.handlers[session] = h
}

// Call sends a command (to session, when not empty) and decodes its result into
// result, if not nil.
func (b *Browser) Call(ctx context.Context, session, method string, params, result any) error {
	b.mu.Lock()
	if b.err != nil {
		err := b.err
		b.mu.Unlock()
		return err
	}
	b.nextID++
	id := b.nextID
	ch := make(chan reply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(r.Result, result)
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: %w", method, b.err)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Close asks the browser to exit, and kills it if it has not within ten seconds.
func (b *Browser) Close() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b.Call(ctx, "", "Browser.close", nil, nil) // sent; the answer is not awaited
	errc := make(chan error, 1)
	go func() { errc <- b.cmd.Wait() }()
	select {
	case <-errc:
	case <-time.After(10 * time.Second):
		b.cmd.Process.Kill()
		<-errc
	}
	b.in.Close()
}

// NewTab opens about:blank in a new tab and attaches to it, returning the tab's
// target ID and the session to send its commands to.
func (b *Browser) NewTab(ctx context.Context) (target, session string, err error) {
	var created struct{ TargetID string }
	if err := b.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
		return "", "", err
	}
	var attached struct{ SessionID string }
	if err := b.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached); err != nil {
		return "", "", err
	}
	return created.TargetID, attached.SessionID, nil
}

// CloseTab closes the tab of target and forgets its session's event handler.
func (b *Browser) CloseTab(ctx context.Context, target, session string) error {
	b.OnEvent(session, nil)
	return b.Call(ctx, "", "Target.closeTarget", map[string]any{"targetId": target}, nil)
}

// FrameTree is the result of Page.getFrameTree: a frame and the frames inside it.
type FrameTree struct {
	Frame struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	} `json:"frame"`
	ChildFrames []FrameTree `json:"childFrames"`
}

// Find returns the ID of the first frame, depth first, whose URL match accepts, or "".
func (f *FrameTree) Find(match func(string) bool) string {
	if match(f.Frame.URL) {
		return f.Frame.ID
	}
	for i := range f.ChildFrames {
		if id := f.ChildFrames[i].Find(match); id != "" {
			return id
		}
	}
	return ""
}

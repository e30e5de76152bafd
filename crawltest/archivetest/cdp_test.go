package archivetest

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

// browser is a headless Chromium driven over the DevTools protocol through
// --remote-debugging-pipe: requests go to its file descriptor 3 and answers
// come from its descriptor 4, each message a JSON object ended by a NUL byte.
type browser struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpReply
	done    chan struct{}
	err     error
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// startBrowser starts Chromium at path with a new profile in profileDir,
// with the flags this machine needs (no sandbox as root, no GPU, no network
// of its own: every background connection is refused here).
func startBrowser(path, profileDir string, stderr io.Writer) (*browser, error) {
	toBrowserR, toBrowserW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromBrowserR, fromBrowserW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-default-apps", "--disable-extensions", "--mute-audio",
		"--window-size=1280,900", "--user-data-dir="+profileDir,
		"--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toBrowserR, fromBrowserW} // fd 3 and fd 4
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	toBrowserR.Close()
	fromBrowserW.Close()
	b := &browser{cmd: cmd, in: toBrowserW, out: bufio.NewReader(fromBrowserR),
		waiting: map[int]chan cdpReply{}, done: make(chan struct{})}
	go b.read()
	return b, nil
}

// read dispatches answers to their callers; events are dropped.
func (b *browser) read() {
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
			ID int `json:"id"`
			cdpReply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.waiting[m.ID]
		delete(b.waiting, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
}

// call sends a command (to session, when not empty) and decodes its result
// into result, if not nil.
func (b *browser) call(ctx context.Context, session, method string, params, result any) error {
	b.mu.Lock()
	if b.err != nil {
		err := b.err
		b.mu.Unlock()
		return err
	}
	b.nextID++
	id := b.nextID
	ch := make(chan cdpReply, 1)
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

// close asks the browser to exit, and kills it if it has not within ten
// seconds.
func (b *browser) close() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b.call(ctx, "", "Browser.close", nil, nil) // sent; the answer is not awaited
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

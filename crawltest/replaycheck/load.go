package replaycheck

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/politecrawl/crawl/crawltest/cdp"
)

// Resource is one URL a page loaded, as the browser saw it.
type Resource struct {
	URL    string `json:"url"`
	Type   string `json:"type"`             // the DevTools resource type: Stylesheet, Script, Image, Font, Document (a frame) …
	Status int    `json:"status,omitempty"` // the last HTTP status (0: none)
	Failed string `json:"failed,omitempty"` // why the load failed, when it did
	// Archived is the status the WACZ's index holds for the URL (icons only: see
	// Page.Icons), 0 when it holds none.
	Archived int `json:"archived_status,omitempty"`
}

// ok reports whether the browser got the resource: an answer below 400.
func (r *Resource) ok() bool { return r.Failed == "" && r.Status > 0 && r.Status < 400 }

// network records a tab's requests from its Network events.
type network struct {
	mu       sync.Mutex
	byID     map[string]*Resource
	inFlight map[string]time.Time // when each request in flight started
	last     time.Time            // when the last event came
	main     string               // the request ID of the tab's own document

	// counts, when not nil, says which URLs count for quiet (the replay tab's
	// service worker script stays in flight as long as the tab).
	counts func(url string) bool
}

func newNetwork() *network {
	return &network{byID: map[string]*Resource{}, inFlight: map[string]time.Time{}, last: time.Now()}
}

func (n *network) event(method string, params json.RawMessage) {
	var p struct {
		RequestID string `json:"requestId"`
		LoaderID  string `json:"loaderId"`
		Type      string `json:"type"`
		Request   struct {
			URL string `json:"url"`
		} `json:"request"`
		Response struct {
			URL    string `json:"url"`
			Status int    `json:"status"`
		} `json:"response"`
		ErrorText string `json:"errorText"`
		Canceled  bool   `json:"canceled"`
	}
	if !strings.HasPrefix(method, "Network.") || json.Unmarshal(params, &p) != nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.last = time.Now()
	switch method {
	case "Network.requestWillBeSent":
		if n.main == "" && p.Type == "Document" && p.RequestID == p.LoaderID {
			n.main = p.RequestID
		}
		r := n.byID[p.RequestID]
		if r == nil { // a redirect keeps its request ID: the first URL is the one the page named
			r = &Resource{URL: p.Request.URL, Type: p.Type}
			n.byID[p.RequestID] = r
		}
		if _, ok := n.inFlight[p.RequestID]; !ok {
			n.inFlight[p.RequestID] = n.last
		}
	case "Network.responseReceived":
		if r := n.byID[p.RequestID]; r != nil {
			r.Status = p.Response.Status
		}
	case "Network.loadingFinished":
		delete(n.inFlight, p.RequestID)
	case "Network.loadingFailed":
		if r := n.byID[p.RequestID]; r != nil && r.Status == 0 {
			r.Failed = p.ErrorText
		}
		delete(n.inFlight, p.RequestID)
	}
}

// quiet reports whether no event has come for d, and no request is in flight but
// those started over 10×d ago: a worker's script or an event stream may never
// say it finished.
func (n *network) quiet(d time.Duration) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if time.Since(n.last) < d {
		return false
	}
	for id, at := range n.inFlight {
		if r := n.byID[id]; r != nil && (n.counts == nil || n.counts(r.URL)) && time.Since(at) < 10*d {
			return false
		}
	}
	return true
}

// pending returns the URLs of the requests in flight.
func (n *network) pending() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var us []string
	for id := range n.inFlight {
		if r := n.byID[id]; r != nil {
			us = append(us, r.URL)
		}
	}
	return us
}

// resources returns the requests but the tab's own document, data: and blob: URLs.
func (n *network) resources() []Resource {
	n.mu.Lock()
	defer n.mu.Unlock()
	var rs []Resource
	for id, r := range n.byID {
		if id == n.main || strings.HasPrefix(r.URL, "data:") || strings.HasPrefix(r.URL, "blob:") {
			continue
		}
		rs = append(rs, *r)
	}
	return rs
}

// tab is a browser tab whose network events are recorded.
type tab struct {
	b               *cdp.Browser
	target, session string
	net             *network
}

// openTab opens a tab of width×height CSS pixels with the cache off and its
// network recorded.
func openTab(ctx context.Context, b *cdp.Browser, width, height int) (*tab, error) {
	target, session, err := b.NewTab(ctx)
	if err != nil {
		return nil, err
	}
	t := &tab{b: b, target: target, session: session, net: newNetwork()}
	b.OnEvent(session, t.net.event)
	for _, c := range []struct {
		method string
		params any
	}{
		{"Network.enable", nil},
		{"Network.setCacheDisabled", map[string]any{"cacheDisabled": true}},
		{"Page.enable", nil},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}},
	} {
		if err := b.Call(ctx, session, c.method, c.params, nil); err != nil {
			t.close()
			return nil, err
		}
	}
	return t, nil
}

func (t *tab) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t.b.CloseTab(ctx, t.target, t.session)
}

func (t *tab) navigate(ctx context.Context, u string) error {
	var res struct{ ErrorText string }
	if err := t.b.Call(ctx, t.session, "Page.navigate", map[string]any{"url": u}, &res); err != nil {
		return err
	}
	if res.ErrorText != "" {
		return fmt.Errorf("navigate %s: %s", u, res.ErrorText)
	}
	return nil
}

// evaluate evaluates the JavaScript expression expr in frame (the tab's main
// frame when "") and decodes its value (awaited, when it is a promise), passed
// through JSON.stringify, into v. It runs in an isolated world, so the page's
// scripts (and a replay system's) do not answer for it; the world shares the
// frame's DOM.
func (t *tab) evaluate(ctx context.Context, frame, expr string, v any) error {
	if frame == "" {
		var tree struct{ FrameTree cdp.FrameTree }
		if err := t.b.Call(ctx, t.session, "Page.getFrameTree", nil, &tree); err != nil {
			return err
		}
		frame = tree.FrameTree.Frame.ID
	}
	var world struct{ ExecutionContextID int }
	if err := t.b.Call(ctx, t.session, "Page.createIsolatedWorld", map[string]any{"frameId": frame, "worldName": "replaycheck"}, &world); err != nil {
		return err
	}
	var res struct {
		Result struct{ Value string }
	}
	js := "(async () => JSON.stringify(await (" + expr + ")))()"
	if err := t.b.Call(ctx, t.session, "Runtime.evaluate", map[string]any{"expression": js, "contextId": world.ExecutionContextID, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return err
	}
	return json.Unmarshal([]byte(res.Result.Value), v)
}

// frameState is what waitLoaded reads of a frame.
type frameState struct {
	Ready  string  `json:"ready"`
	Title  string  `json:"title"`
	X      float64 `json:"x"` // the frame's viewport in the tab's, in CSS pixels
	Y      float64 `json:"y"`
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Type   string  `json:"type"` // document.contentType
}

// stateJS reads a frame's frameState once its fonts are ready; the frame's place
// in the tab is the sum of the offsets of the frame elements above it.
const stateJS = `document.fonts.ready.then(() => {
	let x = 0, y = 0;
	for (let w = window; w !== w.top && w.frameElement; w = w.parent) {
		const e = w.frameElement, r = e.getBoundingClientRect();
		x += r.left + e.clientLeft; y += r.top + e.clientTop;
	}
	return {ready: document.readyState, title: document.title, x, y,
		width: document.documentElement.clientWidth || window.innerWidth,
		height: window.innerHeight, type: document.contentType};
})`

// waitLoaded waits until frame (found by find in the tab's frame tree) is
// complete and the tab's network has been quiet for quiet, and returns the
// frame's ID and state.
func (t *tab) waitLoaded(ctx context.Context, find func(string) bool, quiet time.Duration) (string, frameState, error) {
	var st frameState
	var frames []string
	var evalErr error
	for {
		var tree struct{ FrameTree cdp.FrameTree }
		if err := t.b.Call(ctx, t.session, "Page.getFrameTree", nil, &tree); err != nil {
			return "", st, err
		}
		frames = frames[:0]
		if id := tree.FrameTree.Find(func(u string) bool { frames = append(frames, u); return find(u) }); id != "" {
			evalErr = t.evaluate(ctx, id, stateJS, &st)
			if evalErr == nil && st.Ready == "complete" && t.net.quiet(quiet) {
				return id, st, nil
			}
		}
		select {
		case <-ctx.Done():
			return "", st, fmt.Errorf("not loaded (frames %q, last state %+v, %v, in flight %q): %w", frames, st, evalErr, t.net.pending(), ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// screenshot captures the tab's rectangle at (x, y) of width×height CSS pixels as PNG.
func (t *tab) screenshot(ctx context.Context, x, y float64, width, height int) ([]byte, error) {
	var res struct{ Data string }
	clip := map[string]any{"x": x, "y": y, "width": width, "height": height, "scale": 1}
	if err := t.b.Call(ctx, t.session, "Page.captureScreenshot", map[string]any{"format": "png", "clip": clip}, &res); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(res.Data)
}

package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Client fetches URLs over HTTP/1.1 with the limits of its Options. It keeps a
// pool of keep-alive connections. A Client is safe for simultaneous use by
// multiple goroutines; make one and share it.
type Client struct {
	opts       Options
	warnings   []string
	transport  roundTripper
	dialer     *dialer
	headers    []headerRule // from the most general pattern to the most specific
	auth       []authRule   // likewise
	timeoutErr error        // cause of the whole-request deadline
}

// New returns a Client for opts, or an error if an option is invalid (an
// unusable User-Agent, a negative limit, a malformed Resolve entry or
// AcceptTypes value).
func New(opts Options) (*Client, error) {
	o, warnings, resolve, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	o.AcceptTypes = append([]string(nil), o.AcceptTypes...)
	d := &dialer{
		net:        net.Dialer{Timeout: o.DialTimeout, KeepAlive: 30 * time.Second, Resolver: o.Resolver},
		resolve:    resolve,
		tlsConfig:  o.TLSConfig,
		tlsTimeout: o.TLSTimeout,
	}
	if !o.AllowPrivate {
		d.allow = PublicAddr
		d.net.Control = d.control
	}
	headers, err := parseHeaders(o.Headers)
	if err != nil {
		return nil, err
	}
	auth, err := parseAuth(o.Auth)
	if err != nil {
		return nil, err
	}
	if o.Proxy != "" {
		if d.proxy, err = parseProxy(o.Proxy, o.NoProxy, o.DialTimeout, o.TLSConfig); err != nil {
			return nil, err
		}
	}
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	t := &http.Transport{
		Proxy:       nil, // the dialer tunnels through Options.Proxy itself, to checked addresses
		DialContext: d.dial,
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.dialTLS(ctx, network, addr, []string{"http/1.1"})
		},
		Protocols:              protocols,
		ForceAttemptHTTP2:      false,
		TLSNextProto:           map[string]func(string, *tls.Conn) http.RoundTripper{},
		DisableCompression:     true, // we send Accept-Encoding and decode ourselves, keeping the raw body
		MaxIdleConns:           o.MaxIdleConns,
		MaxIdleConnsPerHost:    o.MaxConnsPerHost,
		MaxConnsPerHost:        o.MaxConnsPerHost,
		IdleConnTimeout:        o.IdleTimeout,
		ResponseHeaderTimeout:  o.HeaderTimeout,
		MaxResponseHeaderBytes: maxRecordHeader,
	}
	var rt roundTripper = t
	if o.HTTP2 != HTTP2Off {
		rt = newProtoSwitch(o.HTTP2, d, t)
	}
	return &Client{
		opts:       o,
		dialer:     d,
		headers:    headers,
		auth:       auth,
		warnings:   warnings,
		transport:  rt,
		timeoutErr: fmt.Errorf("whole-request timeout of %v: %w", o.Timeout, context.DeadlineExceeded), // inside an *Error, which names the package
	}, nil
}

// roundTripper is the client's transport: an *http.Transport, or a
// *protoSwitch over two when HTTP/2 is on.
type roundTripper interface {
	http.RoundTripper
	CloseIdleConnections()
}

// Warnings returns what New found questionable but accepted, such as a
// User-Agent without a contact URL. The caller should log them.
func (c *Client) Warnings() []string { return append([]string(nil), c.warnings...) }

// CloseIdleConnections closes the pooled connections not in use. The Client
// stays usable.
func (c *Client) CloseIdleConnections() { c.transport.CloseIdleConnections() }

// Fetch GETs req.URL and reads the response within the client's limits and
// Timeout. HTTP error statuses are responses, not errors. A redirect is returned
// as the response unless req.FollowRedirects allows following it.
//
// On failure the error is an *Error. When following redirects fails (a loop,
// too many hops, a target that is not http or https), Fetch returns both the
// last redirect response, with the earlier hops in Redirects, and the *Error,
// as net/http's Client does when CheckRedirect fails.
func (c *Client) Fetch(ctx context.Context, req *Request) (*Response, error) {
	if req == nil {
		return nil, &Error{Phase: PhasePolicy, Err: errNilRequest}
	}
	u, err := parseURL(req.URL)
	if err != nil {
		return nil, &Error{URL: req.URL, Phase: PhasePolicy, Err: err}
	}
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, c.opts.Timeout, c.timeoutErr)
	defer cancel()

	var hops []*Response
	var seen map[string]bool
	for {
		resp, err := c.fetchOne(ctx, parent, u, req, len(hops) == 0)
		if err != nil {
			return nil, err
		}
		if resp.Location == "" || req.FollowRedirects <= 0 {
			return finish(req, resp, hops), nil
		}
		if len(hops) >= req.FollowRedirects {
			return finish(req, resp, hops), &Error{URL: resp.FinalURL, Phase: PhaseRedirect,
				Err: fmt.Errorf("%w: more than %d", ErrTooManyRedirects, req.FollowRedirects)}
		}
		next, err := parseURL(resp.Location)
		if err != nil {
			return finish(req, resp, hops), &Error{URL: resp.Location, Phase: PhasePolicy, Err: err}
		}
		if seen == nil {
			seen = map[string]bool{u.String(): true}
		}
		if seen[next.String()] {
			return finish(req, resp, hops), &Error{URL: resp.Location, Phase: PhaseRedirect, Err: ErrRedirectLoop}
		}
		seen[next.String()] = true
		hops = append(hops, resp)
		u = next
	}
}

// finish makes resp the answer to req: the requested URL and earlier hops.
func finish(req *Request, resp *Response, hops []*Response) *Response {
	resp.URL = req.URL
	resp.Redirects = hops
	return resp
}

// parseURL accepts absolute http and https URLs with a host, dropping the fragment.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrScheme, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%w: %q", ErrScheme, raw)
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// hop is the state of one request shared with the httptrace callbacks, which
// the transport calls from its own goroutines.
type hop struct {
	mu        sync.Mutex
	conn      *conn
	reused    bool
	wrote     time.Time
	firstByte time.Time
}

// fetchOne does one HTTP exchange. parent is the caller's context, ctx the same
// with the whole-request deadline.
func (c *Client) fetchOne(ctx, parent context.Context, u *url.URL, req *Request, first bool) (*Response, error) {
	target := u.String()
	resp := &Response{URL: target, FinalURL: target, Start: time.Now()}
	rec := new(recorder)
	h := new(hop)
	hreqPath := u.RequestURI()
	trace := &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			cc, ok := info.Conn.(*conn)
			if !ok {
				return
			}
			if cc.h2 != nil {
				cc.h2.expect(rec, hreqPath)
			} else {
				cc.rec.Store(rec)
			}
			h.mu.Lock()
			h.conn, h.reused = cc, info.Reused
			h.mu.Unlock()
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			h.mu.Lock()
			h.wrote = time.Now()
			h.mu.Unlock()
		},
		GotFirstResponseByte: func() {
			h.mu.Lock()
			h.firstByte = time.Now()
			h.mu.Unlock()
		},
	}
	hreq, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, target, nil)
	if err != nil {
		return nil, &Error{URL: target, Phase: PhasePolicy, Err: err}
	}
	accept := c.opts.AcceptTypes
	if req.AcceptTypes != nil {
		accept = req.AcceptTypes
	}
	c.hostHeader(hreq.Header, u.Hostname())
	c.setHeader(hreq.Header, req, accept, first)
	if c.opts.Jar != nil {
		for _, ck := range c.opts.Jar.Cookies(u) {
			hreq.AddCookie(ck)
		}
	}

	hresp, err := c.transport.RoundTrip(hreq)
	defer func() {
		h.mu.Lock()
		if h.conn != nil && h.conn.h2 != nil {
			h.conn.h2.forget(rec)
		} else if h.conn != nil {
			h.conn.rec.CompareAndSwap(rec, nil)
		}
		h.mu.Unlock()
	}()
	if err != nil {
		return nil, c.fail(ctx, parent, target, err)
	}
	defer hresp.Body.Close()
	if c.opts.Jar != nil {
		if rc := hresp.Cookies(); len(rc) > 0 {
			c.opts.Jar.SetCookies(u, rc)
		}
	}
	resp.Status = hresp.StatusCode
	resp.Header = hresp.Header
	if hresp.StatusCode/100 == 3 && hresp.StatusCode != http.StatusNotModified {
		if loc, err := hresp.Location(); err == nil {
			resp.Location = loc.String()
		}
	}

	if ct := hresp.Header.Get("Content-Type"); !accepts(accept, ct) {
		resp.Skipped = fmt.Sprintf("content type %q not accepted", ct)
		// A little draining lets a short body keep the connection reusable.
		io.CopyN(io.Discard, hresp.Body, 4<<10)
	} else {
		limit := c.opts.MaxBodySize
		if req.MaxBodySize > 0 {
			limit = req.MaxBodySize
		}
		maxDecoded := c.opts.MaxDecodedSize
		if req.MaxDecodedSize > 0 {
			maxDecoded = req.MaxDecodedSize
		}
		codings := contentCodings(hresp.Header.Values("Content-Encoding"))
		acct := &account{budget: req.Budget, claim: c.claim(hresp.ContentLength, limit, maxDecoded, len(codings))}
		raw, truncated, err := readPooled(ctx, hresp.Body, hresp.ContentLength, limit, acct)
		if err != nil {
			acct.release(int64(cap(raw)))
			putBuf(raw)
			return nil, c.fail(ctx, parent, target, err)
		}
		resp.RawBody, resp.Truncated = raw, truncated
		resp.Body, resp.DecodeError = decodeBudgeted(ctx, raw, codings, maxDecoded, c.opts.MaxRatio, acct)
		if err := ctx.Err(); err != nil && resp.Body == nil && resp.DecodeError != nil {
			acct.release(int64(cap(raw)))
			putBuf(raw)
			return nil, c.fail(ctx, parent, target, err)
		}
	}
	resp.End = time.Now()

	h.mu.Lock()
	cc, reused, wrote, firstByte := h.conn, h.reused, h.wrote, h.firstByte
	h.mu.Unlock()
	resp.RequestWritten = wrote
	resp.Timings.Total = resp.End.Sub(resp.Start)
	if !wrote.IsZero() && !firstByte.IsZero() {
		resp.Timings.FirstByte = firstByte.Sub(wrote)
	}
	if cc != nil {
		if !reused {
			resp.Timings.DNS, resp.Timings.Connect, resp.Timings.TLS = cc.dns, cc.connect, cc.tls
		}
		if cc.remote.IsValid() {
			resp.RemoteIP = cc.remote.String()
		}
		resp.Protocol, resp.TLSVersion = "http/1.1", cc.tlsVersion
		if cc.h2 != nil {
			resp.Protocol = "h2"
		}
		resp.RawRequest = rec.request()
		resp.RawHeader = rec.header()
	}
	if resp.RawRequest == nil {
		resp.RawRequest = rebuildRequest(hreq)
	}
	if resp.RawHeader == nil {
		resp.RawHeader = rebuildHeader(hresp)
	}
	return resp, nil
}

// setHeader sets the request's own header, after the configured ones
// (hostHeader): the request's extras, then the client's own fields.
func (c *Client) setHeader(h http.Header, req *Request, accept []string, first bool) {
	for k, vs := range req.Header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	h.Set("User-Agent", c.opts.UserAgent)
	h.Set("Accept-Encoding", "gzip, br, zstd")
	if h.Get("Accept") == "" {
		if len(accept) == 0 {
			h.Set("Accept", "*/*")
		} else {
			h.Set("Accept", strings.Join(accept, ", "))
		}
	}
	if first && req.ETag != "" {
		h.Set("If-None-Match", req.ETag)
	}
	if first && req.LastModified != "" {
		h.Set("If-Modified-Since", req.LastModified)
	}
}

// fail turns a transport or body error into an *Error with its phase.
func (c *Client) fail(ctx, parent context.Context, target string, err error) *Error {
	var de *dialError
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return &Error{URL: target, Phase: PhasePolicy, Err: err}
	case parent.Err() != nil:
		phase := PhaseCanceled
		if errors.Is(parent.Err(), context.DeadlineExceeded) {
			phase = PhaseTimeout
		}
		return &Error{URL: target, Phase: phase, Err: context.Cause(parent)}
	case ctx.Err() != nil:
		return &Error{URL: target, Phase: PhaseTimeout, Err: context.Cause(ctx)}
	case isTimeout(err):
		return &Error{URL: target, Phase: PhaseTimeout, Err: err}
	case errors.As(err, &de):
		return &Error{URL: target, Phase: de.phase, Err: de.err}
	}
	return &Error{URL: target, Phase: PhaseRead, Err: err}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// accepts reports whether a response of content type ct is read under the
// accepted list (nil or empty: everything; a missing Content-Type: read).
func accepts(accept []string, ct string) bool {
	if len(accept) == 0 || ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	}
	typ, _, _ := strings.Cut(mt, "/")
	for _, a := range accept {
		a = strings.ToLower(strings.TrimSpace(strings.Split(a, ";")[0]))
		switch {
		case a == "*/*", a == mt:
			return true
		case strings.HasSuffix(a, "/*") && a[:len(a)-2] == typ:
			return true
		}
	}
	return false
}

// claim is the most body bytes, counted in buffer capacity, that one response
// can make Fetch hold: the received body (twice its cap while a buffer of unknown
// size grows) and, per content coding, a decoded body as large as the decoding
// limits allow (twice again, as it grows).
func (c *Client) claim(contentLength, limit, maxDecoded int64, codings int) int64 {
	raw := int64(bufSize(int(limit)))
	if contentLength >= 0 && contentLength <= limit {
		raw = int64(bufSize(int(contentLength)))
	} else {
		raw *= 2
	}
	if codings == 0 {
		return raw
	}
	decoded := int64(bufSize(int(decodeLimit(int(min(contentLength, limit)), maxDecoded, c.opts.MaxRatio))))
	if contentLength < 0 {
		decoded = int64(bufSize(int(decodeLimit(int(limit), maxDecoded, c.opts.MaxRatio))))
	}
	return raw + 2*decoded*int64(min(codings, maxCodings))
}

// rebuildRequest writes hreq as net/http would; used only if the wire capture
// missed (the conn was not ours).
func rebuildRequest(hreq *http.Request) []byte {
	var b bytes.Buffer
	hreq.Write(&b)
	return b.Bytes()
}

// rebuildHeader writes the status line and header of hresp; used only if the
// wire capture missed.
func rebuildHeader(hresp *http.Response) []byte {
	var b bytes.Buffer
	if hresp.ProtoMajor == 2 {
		b.WriteString(h2StatusLine(hresp.StatusCode))
	} else {
		fmt.Fprintf(&b, "HTTP/%d.%d %s\r\n", hresp.ProtoMajor, hresp.ProtoMinor, hresp.Status)
	}
	hresp.Header.Write(&b)
	b.WriteString("\r\n")
	return b.Bytes()
}

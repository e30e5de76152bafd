package fetch

import (
	"net/http"
	"time"
)

// Request is one URL to fetch. The zero value of every field but URL means
// "nothing special": no conditional headers, redirects returned, the client's
// limits.
type Request struct {
	// URL is the absolute http or https URL to GET. Its fragment is not sent.
	URL string

	// ETag and LastModified, if set, are sent as If-None-Match and
	// If-Modified-Since (conditional GET); an unchanged resource then comes back
	// as 304 Not Modified. They apply to the first hop only.
	ETag, LastModified string

	// FollowRedirects is how many redirects Fetch follows itself, across hosts
	// too. Zero returns a redirect as the response (Status 3xx, Location set) so
	// that the caller can put every hop through robots and politeness; robots.txt
	// fetches use 5 (RFC 9309).
	FollowRedirects int

	// Header holds extra request headers. User-Agent and Accept-Encoding are
	// always the client's; Accept is the client's unless set here.
	Header http.Header

	// AcceptTypes, if not nil, replaces Options.AcceptTypes for this request (for
	// example []string{"text/plain"} for robots.txt on a client that accepts only
	// HTML). An empty non-nil slice accepts every type.
	AcceptTypes []string

	// MaxBodySize, if positive, replaces Options.MaxBodySize for this request.
	MaxBodySize int64
	// MaxDecodedSize, if positive, replaces Options.MaxDecodedSize for this request
	// (for example robots.txt, of which only the first 500 KiB count).
	MaxDecodedSize int64

	// Budget, if not nil, accounts for the body buffers this fetch holds: Fetch
	// reserves each buffer (received and decoded) before taking it and releases
	// those it drops. What the returned Response holds stays reserved; the caller
	// releases it when done. Nil means no accounting.
	Budget Budget
}

// Response is a fetched HTTP response with its body fully read (up to the
// limits). Fetch returns a new Response each time; the caller owns it and all
// its slices.
type Response struct {
	// URL is the requested URL as given in Request.URL; FinalURL is the URL of
	// this response (different from URL after followed redirects).
	URL, FinalURL string
	// Status is the HTTP status code, such as 200 or 404.
	Status int
	// Header is the response header, keys canonicalised.
	Header http.Header

	// Body is the body with its content coding (gzip, br, zstd, deflate) removed,
	// for parsing. It shares memory with RawBody when there was no content
	// coding. When decoding stopped early, DecodeError says why and Body holds
	// what was decoded before the stop (nil for an unsupported coding).
	Body []byte
	// RawBody is the body as received: content coding kept, chunked transfer
	// coding removed. This is the payload a WARC response record stores.
	RawBody []byte
	// RawRequest is the request as written to the connection: request line and
	// header, HTTP/1.1 wire bytes (for h2, the HTTP/1.1 form of the fields sent).
	RawRequest []byte
	// RawHeader is the status line and header of the final (non-1xx) response,
	// the bytes as received, up to and including the blank line (for h2, the
	// HTTP/1.1 form of the fields received).
	RawHeader []byte

	// Truncated reports that RawBody was cut at the body size limit.
	Truncated bool
	// DecodeError, when not nil, reports why Body is not the complete decoded
	// body: it wraps ErrDecodeLimit (decoded size or ratio cap reached),
	// ErrUnsupportedEncoding, or the decoder's error on a corrupt or truncated
	// stream.
	DecodeError error
	// Skipped, when not empty, says why the body was not read (its content type
	// is not accepted); Body and RawBody are then nil.
	Skipped string

	// Location is the absolute redirect target of a 3xx response with a
	// Location header, resolved against FinalURL; empty otherwise.
	Location string
	// Redirects are the earlier hops, oldest first, when Request.FollowRedirects
	// was positive and redirects were followed; each is a complete Response.
	Redirects []*Response

	// RemoteIP is the IP address of the server the response came from.
	RemoteIP string
	// Protocol is the HTTP version on the wire, as WARC-Protocol names it:
	// "http/1.1" or "h2". An h2 exchange's RawRequest and RawHeader are its
	// HTTP/1.1 form (see doc.go). TLSVersion is "tls/1.2", "tls/1.3" and the
	// like over https, "" over plain http.
	Protocol, TLSVersion string
	// Timings are the durations of the phases of this response's request.
	Timings Timings
	// Start is when this hop began, RequestWritten when its request was fully
	// written to the connection (politeness counts the delay to the next request
	// from it), End when the body was read.
	Start, RequestWritten, End time.Time
}

// Release hands the body buffers of r and of its Redirects back to the client's
// pool and clears Body and RawBody. It is optional (the garbage collector takes
// buffers never released) and saves allocation under load. Nothing may use the
// bodies afterwards, including slices taken from them; call it once, when done.
// Release does not touch Request.Budget: the caller releases what it reserved.
func (r *Response) Release() {
	if r == nil {
		return
	}
	for _, h := range r.Redirects {
		h.Release()
	}
	if cap(r.Body) > 0 && cap(r.RawBody) > 0 && &r.Body[:1][0] != &r.RawBody[:1][0] {
		putBuf(r.Body)
	}
	putBuf(r.RawBody)
	r.Body, r.RawBody = nil, nil
}

// Timings are the durations of the phases of one HTTP request. DNS, Connect and
// TLS are zero when a pooled connection was reused (and DNS when the address was
// given by Options.Resolve or the URL).
type Timings struct {
	DNS       time.Duration // name resolution
	Connect   time.Duration // TCP connect
	TLS       time.Duration // TLS handshake
	FirstByte time.Duration // from the request written to the first response byte
	Total     time.Duration // from Start to End
}

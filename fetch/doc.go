// Package fetch turns one URL into one HTTP response, with limits: it GETs over
// HTTP/1.1 (or HTTP/2, see Options.HTTP2), bounds every phase by a deadline and
// the body by a byte limit, decodes gzip, br and zstd bodies with caps that make
// compression bombs cheap, refuses non-public addresses at dial time (through a
// proxy too), and returns the exact request and response header bytes for
// archiving. It retries nothing and decides nothing about politeness or
// robots.txt: redirects are returned, not followed, unless the request asks
// (robots.txt fetches do).
//
// A [Client] is built once from [Options] and shared by all workers; it keeps a
// pool of keep-alive connections sized for thousands of hosts. It adds the
// operator's headers and credentials by host (Options.Headers, Options.Auth) and
// the cookies of a [Jar], each only to the hosts they belong to.
//
// # Wire bytes
//
// Response.RawRequest and Response.RawHeader are captured, not reconstructed:
// the client's dialer wraps each connection (above TLS, so the bytes are
// plaintext) and records what net/http writes and reads during one exchange.
// Header order, case and spacing are as on the wire. Interim 1xx responses are
// left out of RawHeader, as net/http leaves them out of the Response. Only if a
// capture is missing (it should not be) are the bytes rebuilt from the parsed
// request or response. Over HTTP/2 the header blocks are decoded from the frames
// on the wire and given in their HTTP/1.1 form (see h2record.go).
//
// # Caveats
//
// Response slices are owned by the caller; the client keeps no reference to
// them. Body shares its backing array with RawBody when the response had no
// content coding, so modifying one modifies the other.
//
// The network policy is checked on the address actually dialed (net.Dialer
// Control), so neither DNS rebinding nor Options.Resolve can reach a refused
// address. Through Options.Proxy the client resolves and checks the address
// itself and asks the proxy for that IP address, never for a name (see
// proxy.go); environment proxies are never read.
package fetch

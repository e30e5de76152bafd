package fetch

import "net/netip"

// nonPublic lists the prefixes, beyond what netip.Addr's predicates cover, that a
// crawler must not reach by default: shared, reserved, documentation, benchmarking
// and translation ranges whose traffic would land on private infrastructure.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network" (RFC 791)
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space, carrier-grade NAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments (RFC 6890)
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation TEST-NET-1 (RFC 5737)
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking (RFC 2544)
	netip.MustParsePrefix("198.51.100.0/24"), // documentation TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and 255.255.255.255 broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use IPv4/IPv6 translation (RFC 8215)
	netip.MustParsePrefix("100::/64"),        // discard-only (RFC 6666)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation (RFC 3849)
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
}

// nat64 is the well-known NAT64 prefix (RFC 6052): its last 32 bits are an IPv4 address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// PublicAddr reports whether addr may be fetched when private addresses are refused:
// it is false for loopback, private (RFC 1918, RFC 4193), link-local, multicast,
// unspecified, shared, reserved and documentation addresses, including IPv4
// addresses written as IPv4-mapped or NAT64 (64:ff9b::/96) IPv6 addresses.
func PublicAddr(addr netip.Addr) bool {
	addr = addr.Unmap()
	if !addr.IsValid() {
		return false
	}
	if nat64.Contains(addr) {
		b := addr.As16()
		return PublicAddr(netip.AddrFrom4([4]byte(b[12:])))
	}
	if addr.IsLoopback() || addr.IsPrivate() || addr.IsUnspecified() ||
		addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsInterfaceLocalMulticast() || addr.IsMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

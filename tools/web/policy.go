package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// Options configure the web tools of one deck. The zero value is the
// default: every address reachable, the system resolver, search backends
// chosen from the environment.
type Options struct {
	// RefusePrivate refuses loopback, private (RFC 1918, RFC 4193),
	// link-local, unspecified, "this network" (0.0.0.0/8), broadcast and
	// CGNAT addresses, also when an IPv6 address carries one of them
	// (IPv4-mapped, IPv4-compatible or NAT64 forms). It is checked on the
	// address a connection is about to use, after DNS resolution, for the
	// first request and every redirect. Off by default so that a local dev
	// server can be fetched; a host exposing the deck to others turns it on.
	RefusePrivate bool
	// Allow keeps these prefixes reachable when RefusePrivate is on (a
	// proxy or mirror on the local network).
	Allow []netip.Prefix
	// Lookup resolves a host name; nil means the system resolver. Hosts with
	// their own resolver, and tests, set it.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// Timeout bounds one fetch, redirects included; 0 means [FetchTimeout].
	Timeout time.Duration
	// Search chooses the websearch backends; nil means read them from the
	// environment at each call (see [SearchConfigFromEnv]).
	Search *SearchConfig
}

// RefusedError says that the policy refused to connect to an address.
type RefusedError struct {
	Host string
	Addr netip.Addr
}

func (e *RefusedError) Error() string {
	if e.Host == "" || e.Host == e.Addr.String() {
		return fmt.Sprintf("%s is a %s address, and this deck refuses private, loopback and link-local addresses", e.Addr, kindOf(e.Addr))
	}
	return fmt.Sprintf("%s resolves to %s, a %s address, and this deck refuses private, loopback and link-local addresses", e.Host, e.Addr, kindOf(e.Addr))
}

var (
	// cgnat is the carrier-grade NAT range (RFC 6598); cloud metadata and
	// internal services live there as often as in RFC 1918 space.
	cgnat = netip.MustParsePrefix("100.64.0.0/10")
	// thisNetwork (RFC 1122) is not a destination, yet Linux connects
	// 0.0.0.0 and its neighbours to the local host.
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	broadcast   = netip.AddrFrom4([4]byte{255, 255, 255, 255})
	// nat64 is the well-known NAT64 prefix (RFC 6052): a translator on
	// the path turns 64:ff9b::a.b.c.d into a connection to a.b.c.d.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
	// ipv4Compatible is the deprecated ::a.b.c.d form (RFC 4291), which
	// some stacks still route to a.b.c.d.
	ipv4Compatible = netip.MustParsePrefix("::/96")
)

// embeddedIPv4 returns the IPv4 address an IPv6 address carries (mapped,
// compatible or NAT64 form), so the policy judges where the packets end
// up; any other address is returned as it is. :: and ::1 keep their own
// meaning.
func embeddedIPv4(a netip.Addr) netip.Addr {
	a = a.Unmap()
	if !a.Is6() || a.IsUnspecified() || a.IsLoopback() {
		return a
	}
	if nat64.Contains(a) || ipv4Compatible.Contains(a) {
		b := a.As16()
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	return a
}

func kindOf(a netip.Addr) string {
	a = embeddedIPv4(a)
	switch {
	case thisNetwork.Contains(a):
		return `"this network" (0.0.0.0/8)`
	case a == broadcast:
		return "broadcast"
	case a.IsLoopback():
		return "loopback"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsUnspecified():
		return "unspecified"
	}
	return "private"
}

// refused reports whether the policy forbids connecting to a.
func (o *Options) refused(a netip.Addr) bool {
	if !o.RefusePrivate {
		return false
	}
	a = embeddedIPv4(a)
	for _, p := range o.Allow {
		if p.Contains(a) {
			return false
		}
	}
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsUnspecified() || cgnat.Contains(a) ||
		thisNetwork.Contains(a) || a == broadcast
}

func (o *Options) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	if o.Lookup != nil {
		return o.Lookup(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// dialContext resolves the host itself, drops the addresses the policy
// refuses and dials the rest in order. The dialer's Control check repeats
// the test on the socket's actual peer, so nothing the resolver returns
// later can slip through.
func (o *Options) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, err := o.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s has no address", host)
	}
	d := net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: o.control(host)}
	var errs []error
	for _, a := range addrs {
		if o.refused(a) {
			errs = append(errs, &RefusedError{Host: host, Addr: a.Unmap()})
			continue
		}
		c, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func (o *Options) control(host string) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return err
		}
		if o.refused(ap.Addr()) {
			return &RefusedError{Host: host, Addr: ap.Addr().Unmap()}
		}
		return nil
	}
}

package openaicompat

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/heddle-gw/heddle/internal/netpolicy"
)

// maxRedirects is net/http's own default limit, kept when a guarded client
// installs its redirect check.
const maxRedirects = 10

// checkHost refuses a base URL host the address policy refuses (an IP
// literal that is not public, or spelled non-canonically; localhost names)
// before any dial. Names are checked at dial time, on what they resolve to.
func checkHost(host string) error {
	if err := netpolicy.Host(host, false); err != nil {
		return fmt.Errorf("%w: %w", ErrBlockedAddress, err)
	}
	return nil
}

// control runs on every socket after name resolution, with the address
// actually being dialed.
func control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparsable dial address %q", ErrBlockedAddress, address)
	}
	if err := netpolicy.Addr(ap.Addr()); err != nil {
		return fmt.Errorf("%w: %w", ErrBlockedAddress, err)
	}
	return nil
}

// dialControlled is a transport other than *http.Transport that can run a
// socket control function on every address it dials (fastupstream's). The
// returned transport must use no proxy and apply control to every dial,
// including any it hands to another transport.
type dialControlled interface {
	WithDialControl(control func(network, address string, c syscall.RawConn) error) http.RoundTripper
}

// guardedTransport clones base (when it is an *http.Transport, or one that
// takes a dial control) with the address check in its dialer and no proxy;
// any other base is replaced by a guarded net/http transport.
func guardedTransport(base http.RoundTripper) http.RoundTripper {
	if dc, ok := base.(dialControlled); ok {
		return dc.WithDialControl(control)
	}
	t, ok := base.(*http.Transport)
	if !ok || t == nil {
		t = http.DefaultTransport.(*http.Transport)
	}
	t = t.Clone()
	t.Proxy = nil
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: control}
	t.DialContext = d.DialContext
	t.DialTLSContext = nil
	return t
}

// guardRedirects returns a redirect check that refuses a target whose host
// the address policy refuses (the dialer would refuse its address too, but
// a pooled connection to a name is not dialed again), then applies next
// (net/http's limit of 10 redirects when next is nil).
func guardRedirects(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if err := checkHost(req.URL.Hostname()); err != nil {
			return fmt.Errorf("redirect to %s: %w", req.URL.Redacted(), err)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return errors.New("openaicompat: stopped after 10 redirects")
		}
		return nil
	}
}

// GuardedClient returns a copy of hc whose transport refuses loopback,
// private, link-local and reserved addresses at dial time (netpolicy.Addr on
// every resolved address; no proxy), and which follows no redirect to a host
// the policy refuses. The composition root gives it to every provider
// adapter when the operator does not allow private upstreams, so no
// credential's base URL can reach an internal address.
func GuardedClient(hc *http.Client) *http.Client {
	if hc == nil {
		hc = &http.Client{}
	}
	clone := *hc
	clone.Transport = guardedTransport(hc.Transport)
	clone.CheckRedirect = guardRedirects(hc.CheckRedirect)
	return &clone
}

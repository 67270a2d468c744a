package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// refusers bounds the connections being refused at once: beyond it an over
// the cap connection is closed without an answer, so that a flood of them
// costs no more than the accept.
const refusers = 64

// clientConnLimit is a net.Listener that lets one client address hold at
// most max connections at once (an IPv6 address counts by its /64, which
// one host usually has whole). A connection over the cap is answered 503
// SERVICE_OVERLOADED with Retry-After and closed, without its request being
// read: reading it is what the cap keeps an address from making the server
// do, and the answer, unlike a bare close, tells a client (or its
// operator) why and when to retry. Addresses in Exempt (the proxies in
// front, whose connections carry many clients) have no cap.
type clientConnLimit struct {
	net.Listener
	max    int
	exempt []netip.Prefix
	log    *slog.Logger

	mu      sync.Mutex
	open    map[netip.Prefix]int
	refuse  chan struct{}
	refused atomic.Int64 // since the last log line
	logged  atomic.Int64 // Unix ns of the last log line
}

// LimitConnsPerClient wraps ln so that one client address holds at most max
// connections at once, those of exempt aside (see clientConnLimit); max <= 0
// returns ln as it is.
func LimitConnsPerClient(ln net.Listener, max int, exempt []netip.Prefix, log *slog.Logger) net.Listener {
	if max <= 0 {
		return ln
	}
	return &clientConnLimit{Listener: ln, max: max, exempt: exempt, log: log,
		open: map[netip.Prefix]int{}, refuse: make(chan struct{}, refusers)}
}

// Accept returns the next connection whose address is under its cap; the
// others are refused meanwhile.
func (l *clientConnLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key, ok := l.key(c.RemoteAddr())
		if !ok {
			return c, nil
		}
		l.mu.Lock()
		n := l.open[key]
		if n < l.max {
			l.open[key] = n + 1
		}
		l.mu.Unlock()
		if n < l.max {
			return &countedConn{Conn: c, release: func() { l.release(key) }}, nil
		}
		l.refuseConn(c, key)
	}
}

// key is what a connection from addr counts against; false for an exempt
// address (or one that is not IP).
func (l *clientConnLimit) key(addr net.Addr) (netip.Prefix, bool) {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return netip.Prefix{}, false
	}
	ip := ta.AddrPort().Addr().Unmap()
	for _, p := range l.exempt {
		if p.Contains(ip) {
			return netip.Prefix{}, false
		}
	}
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	key, err := ip.Prefix(bits)
	return key, err == nil
}

func (l *clientConnLimit) release(key netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[key]--; l.open[key] <= 0 {
		delete(l.open, key)
	}
}

// refuseConn answers c 503 and closes it, on a goroutine of its own while
// fewer than refusers are, or else closes it at once.
func (l *clientConnLimit) refuseConn(c net.Conn, key netip.Prefix) {
	l.noteRefused(key)
	select {
	case l.refuse <- struct{}{}:
	default:
		c.Close()
		return
	}
	go func() {
		defer func() { <-l.refuse }()
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Second))
		if _, err := c.Write(l.refusal()); err != nil {
			return
		}
		// Closing with the request unread would reset the connection, and
		// the client could lose the answer: end the sending side, then
		// read what comes (a little, briefly) until the client closes.
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		io.Copy(io.Discard, io.LimitReader(c, 64<<10))
	}()
}

// refusal is the answer to a connection over the cap: the contract's error
// body, as writeError would write it.
func (l *clientConnLimit) refusal() []byte {
	status := http.StatusServiceUnavailable
	body, _ := json.Marshal(errorBody{
		Status: status, Reason: http.StatusText(status), ErrorCode: showroom.EServiceOverloaded,
		Message:   fmt.Sprintf("too many connections from your address: at most %d at once; reuse or close one, or retry later", l.max),
		Timestamp: time.Now().UnixMilli(),
	})
	body = append(body, '\n')
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"+
		"Retry-After: 1\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n%s", status, http.StatusText(status), len(body), body)
}

// noteRefused logs refusals at most once a minute, with their count, so that
// a flood of them does not flood the log.
func (l *clientConnLimit) noteRefused(key netip.Prefix) {
	n := l.refused.Add(1)
	now := time.Now().UnixNano()
	last := l.logged.Load()
	if now-last < int64(time.Minute) || !l.logged.CompareAndSwap(last, now) {
		return
	}
	l.refused.Add(-n)
	l.log.Warn("connections refused: their address holds the most connections allowed",
		"refused", n, "last_address", key.String(), "max_per_address", l.max)
}

// countedConn gives its place back when closed.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// CloseWrite lets net/http end the sending side before closing, as it does
// on a bare *net.TCPConn, so that a client does not lose an answer to a
// reset.
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom keeps net/http's sendfile path for files it serves.
func (c *countedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// record is one request and what it was answered.
type record struct {
	op      string
	company string
	start   time.Duration // since the soak began
	dur     time.Duration
	answer
}

// ledger keeps every request's record; safe for concurrent use.
type ledger struct {
	mu      sync.Mutex
	t0      time.Time
	records []record
}

func (l *ledger) add(r record) {
	l.mu.Lock()
	l.records = append(l.records, r)
	l.mu.Unlock()
}

// snapshot returns the records so far.
func (l *ledger) snapshot() []record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]record(nil), l.records...)
}

// request is one call a client makes, with what may come back.
type request struct {
	op      string // its name in the report
	method  string
	url     string
	body    []byte
	ctype   string
	header  map[string]string
	noToken bool     // the auth service's calls carry no access token
	success []int    // the statuses of success
	expect  []string // documented error codes this call may meet besides pushback
	// check looks at a success's answer and says what is wrong with it.
	check func(h http.Header, body []byte) string
}

// response is what came back.
type response struct {
	status int
	header http.Header
	body   []byte
}

// client is one user's session: it logs in, keeps its access token fresh
// and waits as long as Retry-After asks.
type client struct {
	s       *soak
	co      *company
	user    string
	rng     *rand.Rand
	access  string
	refresh string
	expires time.Time
	etag    string // of the company's background, for If-None-Match
}

// do sends r, judges the answer, records it, and honours Retry-After
// before returning. An expired access token is refreshed and the call
// made once more.
func (c *client) do(ctx context.Context, r request) (response, answer) {
	if !r.noToken && time.Until(c.expires) < time.Minute {
		c.renew(ctx)
	}
	res, a := c.send(ctx, r)
	if a.status == http.StatusUnauthorized && a.code == "TOKEN_EXPIRED" && !r.noToken {
		c.renew(ctx)
		res, a = c.send(ctx, r)
	}
	if a.status == 408 || a.status == 429 || a.status == 503 || (a.status == 409 && a.code == "CONFLICT") {
		c.pause(res.header.Get("Retry-After"))
	}
	return res, a
}

// send makes one call and records it. A call the soak itself gives up on
// (its drain deadline, or an interrupt) is not recorded: the service was
// not asked to answer it in time.
func (c *client) send(parent context.Context, r request) (response, answer) {
	ctx, cancel := context.WithTimeout(parent, c.s.cfg.requestTimeout)
	defer cancel()
	start := time.Now()
	res, err := c.roundTrip(ctx, r)
	var a answer
	switch {
	case err != nil && parent.Err() != nil:
		return response{}, answer{class: failure, why: "abandoned by the soak"}
	case err != nil:
		a = answer{class: failure, why: "no answer: " + err.Error()}
		if errors.Is(err, context.DeadlineExceeded) {
			a.why = fmt.Sprintf("no answer within %v", c.s.cfg.requestTimeout)
		}
	case slices.Contains(r.success, res.status):
		a = answer{status: res.status, class: ok}
		if r.check != nil {
			if why := r.check(res.header, res.body); why != "" {
				a.class, a.why = failure, fmt.Sprintf("%d but %s", res.status, why)
			}
		}
	case res.status < 400:
		a = answer{status: res.status, class: failure, why: fmt.Sprintf("unexpected %d", res.status)}
	default:
		a = c.s.docs.judgeError(res.status, res.header, res.body, slices.Concat(r.expect, []string{"TOKEN_EXPIRED"}))
	}
	c.s.ledger.add(record{op: r.op, company: c.co.name, start: start.Sub(c.s.ledger.t0), dur: time.Since(start), answer: a})
	return res, a
}

func (c *client) roundTrip(ctx context.Context, r request) (response, error) {
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, bytes.NewReader(r.body))
	if err != nil {
		return response{}, err
	}
	if r.body == nil {
		req.Body, req.ContentLength = nil, 0
	}
	if r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	if !r.noToken {
		req.Header.Set("Authorization", "Bearer "+c.access)
	}
	res, err := c.s.http.Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return response{}, fmt.Errorf("reading the %d answer: %w", res.StatusCode, err)
	}
	return response{status: res.StatusCode, header: res.Header, body: body}, nil
}

// pause waits as Retry-After asks (at most 30 s, and not past the end of
// the traffic).
func (c *client) pause(retryAfter string) {
	secs, err := strconv.Atoi(retryAfter)
	if err != nil || secs < 1 {
		secs = 1
	}
	t := time.NewTimer(min(time.Duration(secs)*time.Second, 30*time.Second))
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.s.stop:
	}
}

// tokens is the auth service's token response.
type tokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
}

func checkTokens(_ http.Header, body []byte) string {
	var t tokens
	if err := json.Unmarshal(body, &t); err != nil || t.AccessToken == "" || t.RefreshToken == "" || t.TokenType != "bearer" || t.ExpiresIn <= 0 {
		return "not a token response"
	}
	return ""
}

func (c *client) take(body []byte, at time.Time) {
	var t tokens
	json.Unmarshal(body, &t)
	c.access, c.refresh = t.AccessToken, t.RefreshToken
	c.expires = at.Add(time.Duration(t.ExpiresIn) * time.Second)
}

// login logs in, retrying while the auth service pushes back (a crowd of
// clients logging in at once meets its bound on password checks).
func (c *client) login(ctx context.Context) error {
	body, _ := json.Marshal(map[string]string{"username": c.user, "password": c.co.password, "system": "showroom"})
	for ctx.Err() == nil {
		at := time.Now()
		res, a := c.do(ctx, request{op: "login", method: "POST", url: c.s.authURL + "/login", body: body,
			ctype: "application/json", noToken: true, success: []int{200}, check: checkTokens})
		switch a.class {
		case ok:
			c.take(res.body, at)
			return nil
		case failure:
			return fmt.Errorf("login of %s: %s", c.user, a.why)
		}
	}
	return ctx.Err()
}

// renew gets a new access token with the refresh token.
func (c *client) renew(ctx context.Context) {
	body, _ := json.Marshal(map[string]string{"refresh_token": c.refresh})
	at := time.Now()
	res, a := c.do(ctx, request{op: "refresh", method: "POST", url: c.s.authURL + "/refresh", body: body,
		ctype: "application/json", noToken: true, success: []int{200}, check: checkTokens})
	if a.class == ok {
		c.take(res.body, at)
	}
}

func checkImage(h http.Header, body []byte) string {
	if !strings.HasPrefix(h.Get("Content-Type"), "image/") || len(body) == 0 {
		return fmt.Sprintf("not an image (%s, %d bytes)", h.Get("Content-Type"), len(body))
	}
	return ""
}

func checkJSONArray(_ http.Header, body []byte) string {
	var v []json.RawMessage
	if json.Unmarshal(body, &v) != nil {
		return "not a JSON array"
	}
	return ""
}

func checkJSONObject(_ http.Header, body []byte) string {
	var v map[string]json.RawMessage
	if json.Unmarshal(body, &v) != nil {
		return "not a JSON object"
	}
	return ""
}

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// class sorts an answer for the report: what a client under load should
// see (ok, pushback, refused) and what it never should (failure).
type class int

const (
	ok       class = iota // the request's success
	pushback              // a documented "not now": 408, 429, 503, with what the docs promise
	refused               // a documented error this request may meet (a photo without a car, a race with another client)
	failure               // anything else: undocumented, malformed, INTERNAL, no answer
)

func (c class) String() string {
	return [...]string{"ok", "pushback", "refused", "failure"}[c]
}

// docTable is the errorCode → status table of docs/api.md, the list of
// answers a client may be given.
type docTable map[string]int

var docRow = regexp.MustCompile("^\\| `([A-Z_]+)` \\| ([0-9]{3}) \\|")

// readDocTable reads the error table of docs/api.md, so that codes added
// to the docs (say a 408 for a slow body) are expected without changing
// the soak.
func readDocTable(path string) (docTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := docTable{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := docRow.FindStringSubmatch(sc.Text()); m != nil {
			t[m[1]], _ = strconv.Atoi(m[2])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(t) < 10 {
		return nil, fmt.Errorf("%s: found %d rows of the error table, expected its whole table", path, len(t))
	}
	return t, nil
}

// errorBody is the contract's error body.
type errorBody struct {
	Status    int    `json:"status"`
	Reason    string `json:"reason"`
	ErrorCode string `json:"errorCode"`
	Message   string `json:"message"`
	Timestamp int64  `json:"timestamp"`
}

// answer is what the soak keeps of one response.
type answer struct {
	status int
	code   string // errorCode of an error body
	class  class
	why    string // for a failure: what was wrong
}

// judgeError checks an error response against the docs: the contract's body
// with a documented code and its status, and the headers the docs promise.
// expected lists the codes, beyond pushback, this request may meet.
func (t docTable) judgeError(status int, h http.Header, body []byte, expected []string) answer {
	a := answer{status: status, class: failure}
	var e errorBody
	if !strings.HasPrefix(h.Get("Content-Type"), "application/json") || json.Unmarshal(body, &e) != nil {
		a.why = fmt.Sprintf("%d without the JSON error body (%q)", status, clip(body))
		return a
	}
	a.code = e.ErrorCode
	want, documented := t[e.ErrorCode]
	switch {
	case !documented:
		a.why = fmt.Sprintf("%d %s: code not in docs/api.md", status, e.ErrorCode)
	case want != status || e.Status != status:
		a.why = fmt.Sprintf("%d %s: docs/api.md says %d (body says %d)", status, e.ErrorCode, want, e.Status)
	case e.Reason != http.StatusText(status) || e.Message == "" || e.Timestamp <= 0:
		a.why = fmt.Sprintf("%d %s: reason, message or timestamp missing", status, e.ErrorCode)
	case (status == 429 || status == 503) && h.Get("Retry-After") == "":
		a.why = fmt.Sprintf("%d %s without Retry-After", status, e.ErrorCode)
	case status == 401 && h.Get("WWW-Authenticate") == "":
		a.why = fmt.Sprintf("401 %s without WWW-Authenticate", e.ErrorCode)
	case status == 408 || status == 429 || status == 503:
		a.class = pushback
	case status == 500:
		a.why = "500 INTERNAL: " + e.Message
	default:
		if slices.Contains(expected, e.ErrorCode) {
			a.class = refused
			return a
		}
		a.why = fmt.Sprintf("%d %s is documented but not expected here: %s", status, e.ErrorCode, e.Message)
	}
	return a
}

// clip shortens a body for a failure line.
func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

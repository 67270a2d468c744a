package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/showroom/showroom/internal/codec/codectest"
	"github.com/showroom/showroom/internal/drawncar"
)

// The bombing company sends, among the others' traffic, the hostile
// requests below: each must be refused (or served) at once with a
// documented answer, and none may take the service down or slow the other
// companies' answers.
//
//   - tall: a background 8 px wide and 65,000 high covered 8192 wide
//     (a canvas of half a terapixel before the limit);
//   - stretch: a photo 4000x8 resized to a height of 8192;
//   - webp side: an output wider than WebP's 16,383 px;
//   - PNG text: a small PNG carrying compressed text chunks that inflate to
//     gigabytes, as content and as a photo;
//   - comment: a JPEG whose 1 MB comment stands before its frame header,
//     sent asynchronously (accepted only if it can be processed);
//   - body never sent: a Content-Length announced on a route that does
//     not read it, and no body: the connection must be let go quickly.
const (
	tallConfig    = `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"AddBackgroundAndCropProcessor","background":"tall","outputWidth":8192}]`
	stretchConfig = `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"ResizeProcessor","height":8192}]`
	wideConfig    = `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"ResizeProcessor","height":1800}]`
)

// bombRefusals are the documented answers a bomb may get: the size limits,
// the image checks, and the model finding no whole car in a strange photo.
var bombRefusals = []string{"INVALID_CONFIGURATION", "INVALID_IMAGE", "PAYLOAD_TOO_LARGE", "NO_CAR_DETECTED", "CAR_CROPPED"}

// bombMix is the bombing company's traffic.
var bombMix = []op{
	{15, (*client).bombTall},
	{15, (*client).bombStretch},
	{15, (*client).bombWebPSide},
	{15, (*client).bombTextUpload},
	{15, (*client).bombTextPhoto},
	{15, (*client).bombComment},
	{10, (*client).bombBodyNeverSent},
}

// bombs are the bodies the bombing company sends, made once.
type bombs struct {
	tall       []byte // an 8x65000 PNG background
	flat       []byte // a 4000x8 JPEG photo
	wide       []byte // a 4000x400 JPEG photo of a car, for an 18,000 px wide WebP
	textUpload []byte // a 64x64 PNG with 100 zTXt chunks of 8 MiB each (0.8 GB, in 0.8 MB)
	textPhoto  []byte // the same with iTXt chunks
	comment    []byte // an 800x500 JPEG of a car with a 1 MB comment before its frame
	drainFor   time.Duration
}

func makeBombs() (*bombs, error) {
	var b bombs
	var err error
	tall := image.NewNRGBA(image.Rect(0, 0, 8, 65000))
	for i := range tall.Pix {
		tall.Pix[i] = 200
	}
	if b.tall, err = encodePNG(tall); err != nil {
		return nil, err
	}
	flat := image.NewNRGBA(image.Rect(0, 0, 4000, 8))
	for i := range flat.Pix {
		flat.Pix[i] = uint8(i)
	}
	if b.flat, err = encodeJPEG(flat); err != nil {
		return nil, err
	}
	if b.wide, err = encodeJPEG(drawncar.New(4000, 400, 0).Photo); err != nil {
		return nil, err
	}
	b.textUpload = codectest.TextBombPNG(64, 64, 100, 8<<20, "zTXt")
	b.textPhoto = codectest.TextBombPNG(64, 64, 100, 8<<20, "iTXt")
	car, err := encodeJPEG(drawncar.New(800, 500, 0).Photo)
	if err != nil {
		return nil, err
	}
	b.comment = codectest.Commented(car, 1<<20)
	return &b, nil
}

func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	err := png.Encode(&buf, img)
	return buf.Bytes(), err
}

// setupBombs gives the bombing company its tall background and the
// configurations that would make giant canvases.
func (c *client) setupBombs(ctx context.Context) error {
	steps := []request{
		{method: "POST", url: c.url("/v1/content/upload/tall/BACKGROUND_SIMPLE"), body: c.s.bombs.tall, ctype: "image/png"},
		{method: "POST", url: c.url("/v1/configuration/tall"), body: []byte(tallConfig), ctype: "application/json"},
		{method: "POST", url: c.url("/v1/configuration/stretch"), body: []byte(stretchConfig), ctype: "application/json"},
		{method: "POST", url: c.url("/v1/configuration/wide"), body: []byte(wideConfig), ctype: "application/json"},
	}
	return c.setupSteps(ctx, steps)
}

func (c *client) bombProcess(ctx context.Context, op, config, query string, body []byte) {
	c.do(ctx, request{op: op, method: "POST", url: c.url("/v1/process/single/" + config + query),
		body: body, ctype: http.DetectContentType(body), success: []int{200}, expect: bombRefusals, check: checkImage})
}

func (c *client) bombTall(ctx context.Context) {
	c.bombProcess(ctx, "bomb: tall canvas", "tall", "", c.s.photos[0].data)
}

func (c *client) bombStretch(ctx context.Context) {
	c.bombProcess(ctx, "bomb: 4000x8 stretched", "stretch", "", c.s.bombs.flat)
}

func (c *client) bombWebPSide(ctx context.Context) {
	c.bombProcess(ctx, "bomb: WebP side", "wide", "?format=webp", c.s.bombs.wide)
}

func (c *client) bombTextPhoto(ctx context.Context) {
	c.bombProcess(ctx, "bomb: PNG text photo", "cutout", "", c.s.bombs.textPhoto)
}

func (c *client) bombTextUpload(ctx context.Context) {
	c.do(ctx, request{op: "bomb: PNG text upload", method: "POST", url: c.url("/v1/content/upload/textbomb/POSTER"),
		body: c.s.bombs.textUpload, ctype: "image/png", success: []int{200, 201}, expect: bombRefusals, check: checkJSONObject})
}

// bombComment sends the commented JPEG asynchronously: accepted, it must
// be processed like any photo (the follower fetches its result).
func (c *client) bombComment(ctx context.Context) {
	at := time.Now()
	res, a := c.do(ctx, request{op: "bomb: comment before frame (async)", method: "POST", url: c.url("/v1/process/single/cutout?async=true"),
		body: c.s.bombs.comment, ctype: "image/jpeg", success: []int{202}, expect: bombRefusals, check: checkJob})
	if a.class == ok {
		c.acceptJob(res.body, at)
	}
}

// bombBodyNeverSent announces a body on a route that reads none and sends
// nothing: the answer must come at once and the connection be closed
// within drainFor, not held for the body timeout.
func (c *client) bombBodyNeverSent(ctx context.Context) {
	start := time.Now()
	a := answer{class: ok, status: 200}
	if why, status := bodyNeverSent(ctx, c.s.baseURL+"/healthz", c.s.bombs.drainFor); why != "" {
		a = answer{class: failure, status: status, why: why}
	}
	c.s.ledger.add(record{op: "bomb: body never sent", company: c.co.name, start: start.Sub(c.s.ledger.t0), dur: time.Since(start), answer: a})
}

// bodyNeverSent says what went wrong, if anything.
func bodyNeverSent(ctx context.Context, target string, within time.Duration) (why string, status int) {
	u, err := url.Parse(target)
	if err != nil {
		return err.Error(), 0
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return "no connection: " + err.Error(), 0
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(within))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000\r\nContent-Type: application/octet-stream\r\n\r\n", u.Path, u.Host)
	r := bufio.NewReader(conn)
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		return "no answer: " + err.Error(), 0
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	// Whatever the answer, the server must now close the connection: the
	// body it waits for will not come.
	if _, err := r.ReadByte(); err == nil {
		return "bytes after the answer", res.StatusCode
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return fmt.Sprintf("the connection was held for %v after a %d", within, res.StatusCode), res.StatusCode
	}
	return "", res.StatusCode
}

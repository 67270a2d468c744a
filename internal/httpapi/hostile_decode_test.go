package httpapi_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
	"time"

	_ "golang.org/x/image/webp"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/codec/codectest"
	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
	"github.com/showroom/showroom/internal/vision"
)

// Hostile image files, made here (codectest writes them byte by byte),
// through the HTTP API: refused from their header or structure with the
// contract's error body, at once, or accepted when a camera's quirk leaves
// the image whole.
func TestHostileDecodeUploads(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	alice := e.bearer("alice")
	camera := codectest.BaselineJPEG(320, 240)
	for _, tc := range []struct {
		what   string
		body   []byte
		ct     string
		status int
		code   string
	}{
		{"10,000 scans", codectest.ProgressiveJPEG(2048, 2048, 1, 10_000), "image/jpeg", 422, showroom.EInvalidImage},
		{"10,000 scans, CMYK", codectest.ProgressiveJPEG(1024, 1024, 4, 10_000), "image/jpeg", 422, showroom.EInvalidImage},
		{"101 scans", codectest.ProgressiveJPEG(64, 64, 1, 101), "image/jpeg", 422, showroom.EInvalidImage},
		{"scan ends before its data", codectest.AfterFirstScan(codectest.ProgressiveJPEG(320, 240, 1, 5), 40), "image/jpeg", 422, showroom.EInvalidImage},
		{"truncated", camera[:len(camera)*3/4], "image/jpeg", 422, showroom.EInvalidImage},
		{"57 MP 16-bit PNG", codectest.PNGHeader(7550, 7550, 16, 6), "image/png", 413, showroom.EPayloadTooLarge},
	} {
		start := time.Now()
		e.upload(alice, "bg", "BACKGROUND_SIMPLE", tc.body, tc.ct).wantError(tc.status, tc.code)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: answered after %v", tc.what, d)
		}
	}
	for _, tc := range []struct {
		what string
		body []byte
	}{
		{"garbage between header segments", codectest.Garbage(camera, 0xC4, 30)},
		{"garbage before EOI", codectest.Garbage(camera, 0xD9, 300)},
		{"CMYK", codectest.ProgressiveJPEG(64, 48, 4, 10)},
	} {
		if res := e.upload(alice, "ok", "BACKGROUND_SIMPLE", tc.body, "image/jpeg"); res.status != 201 {
			t.Errorf("%s: %d %s, want 201", tc.what, res.status, res.body)
		}
		e.do("DELETE", "/v1/content/ok", nil, alice)
	}
}

// A background accepted on upload is decoded the same way by every run
// that uses it; one stored before the checks of today that no longer
// decodes is the client's to replace: 422 INVALID_IMAGE naming it, at once,
// and an async job fails on its first attempt instead of three model runs
// and a 500. A hostile photo is refused the same way.
func TestHostileDecodeProcessing(t *testing.T) {
	var blobs *blob.Local
	keepBlobs := func(t testing.TB, db *sqlite.DB, b *blob.Local, lib *library.Service, api *httpapi.APIServer) {
		blobs = b
	}
	e := newEnvWith(t, library.DefaultConfig(), withEngine(runnerConfig(), carSegmenter{}), keepBlobs)
	e.addUser("acme", "alice")
	alice := e.bearer("alice")
	car := drawncar.New(480, 300, 0)
	var photo bytes.Buffer
	if err := jpeg.Encode(&photo, car.Photo, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	process := func(config string, body []byte, query string) *response {
		return e.do("POST", "/v1/process/single/"+config+query, bytes.NewReader(body), with(alice, "Content-Type", "image/jpeg"))
	}

	// A camera file with garbage between its segments: accepted, and used.
	e.upload(alice, "camera", "BACKGROUND_SIMPLE", codectest.Garbage(codectest.BaselineJPEG(640, 400), 0xC4, 30), "image/jpeg").wantStatus(201)
	e.do("POST", "/v1/configuration/onCamera", rawJSON(backgroundConfig("camera")), alice).wantStatus(201)
	process("onCamera", photo.Bytes(), "").wantStatus(200)

	// A background stored by an earlier version, which no longer decodes.
	e.upload(alice, "oldbg", "BACKGROUND_SIMPLE", codectest.BaselineJPEG(640, 400), "image/jpeg").wantStatus(201)
	acme, err := e.db.FindCompany(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.lib.Content(showroom.NewContextWithCompany(context.Background(), acme), "oldbg")
	if err != nil {
		t.Fatal(err)
	}
	if err := blobs.Put(context.Background(), c.BlobKey, bytes.NewReader(codectest.ProgressiveJPEG(2048, 2048, 1, 10_000))); err != nil {
		t.Fatal(err)
	}
	e.do("POST", "/v1/configuration/onOld", rawJSON(backgroundConfig("oldbg")), alice).wantStatus(201)
	start := time.Now()
	body := process("onOld", photo.Bytes(), "").wantError(422, showroom.EInvalidImage)
	if msg, _ := body["message"].(string); !strings.Contains(msg, `"oldbg"`) {
		t.Errorf("the message does not name the content: %q", msg)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("answered after %v", d)
	}
	var job struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		Attempts int    `json:"attempts"`
		Error    *struct {
			ErrorCode string `json:"errorCode"`
		} `json:"error"`
	}
	process("onOld", photo.Bytes(), "?async=true").wantStatus(202).decode(&job)
	for deadline := time.Now().Add(30 * time.Second); job.Status != "failed"; time.Sleep(20 * time.Millisecond) {
		e.do("GET", "/v1/process/jobs/"+job.ID, nil, alice).wantStatus(200).decode(&job)
		if job.Status == "succeeded" || time.Now().After(deadline) {
			t.Fatalf("job %+v", job)
		}
	}
	if job.Error == nil || job.Error.ErrorCode != showroom.EInvalidImage || job.Attempts != 1 {
		t.Errorf("job failed with %+v after %d attempts, want INVALID_IMAGE on the first", job.Error, job.Attempts)
	}

	// Hostile photos: refused before any model runs.
	for name, tc := range map[string]struct {
		body   []byte
		status int
		code   string
	}{
		"10,000 scans":       {codectest.ProgressiveJPEG(2048, 2048, 1, 10_000), 422, showroom.EInvalidImage},
		"57 MP 16-bit PNG":   {codectest.PNGHeader(7550, 7550, 16, 6), 413, showroom.EPayloadTooLarge},
		"scan ends too soon": {codectest.AfterFirstScan(codectest.ProgressiveJPEG(320, 240, 1, 5), 40), 422, showroom.EInvalidImage},
	} {
		start := time.Now()
		process("onCamera", tc.body, "").wantError(tc.status, tc.code)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: answered after %v", name, d)
		}
	}
}

// backgroundConfig is a configuration that puts the car on content bg.
func backgroundConfig(bg string) string {
	return `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"AddBackgroundAndCropProcessor","background":"` + bg + `"}]`
}

// carSegmenter finds, in any photo, a car in the middle: the pipeline runs
// without the model, which these tests are not about.
type carSegmenter struct{}

func (carSegmenter) Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error) {
	b := img.Rect
	box := image.Rect(b.Dx()/4, b.Dy()/4, b.Dx()*3/4, b.Dy()*3/4)
	alpha := image.NewGray(b)
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			alpha.Pix[y*alpha.Stride+x] = 255
		}
	}
	return &vision.Mask{Alpha: alpha, Box: box, Confidence: 0.95}, nil
}

// TestHostileImageKinds: every kind of image file an attacker or an odd
// camera sends, uploaded and processed: bombs in each format's header,
// files whose header lies about their data, 16-bit and animated images,
// and the eight EXIF orientations. Each gets the contract's answer, and
// what is accepted comes out the right way up.
func TestHostileImageKinds(t *testing.T) {
	e := newEnvWith(t, library.DefaultConfig(), withEngine(runnerConfig(), carSegmenter{}))
	e.addUser("acme", "alice")
	alice := e.bearer("alice")
	process := func(body []byte) *response {
		return e.do("POST", "/v1/process/single/free_cutout", bytes.NewReader(body), with(alice, "Content-Type", "application/octet-stream"))
	}

	for _, tc := range []struct {
		what   string
		body   []byte
		status int
		code   string
	}{
		{"JPEG header claiming 65,500 x 65,500", jpegClaiming(t, 65500, 65500), 413, showroom.EPayloadTooLarge},
		{"WebP header claiming 16,384 x 16,384", webpCanvas(t, 16384, 16384), 413, showroom.EPayloadTooLarge},
		{"PNG header claiming 100,000 x 100,000", pngHeaderOnly(100_000, 100_000), 413, showroom.EPayloadTooLarge},
		{"PNG claiming 1000 x 1000 over 10 x 10 of data", pngClaiming(t, 1000, 1000), 422, showroom.EInvalidImage},
		{"JPEG claiming 2000 x 2000 over 64 x 48 of data", jpegClaiming(t, 2000, 2000), 422, showroom.EInvalidImage},
		{"WebP cut in half", webpBytes(t)[:len(webpBytes(t))/2], 422, showroom.EInvalidImage},
	} {
		start := time.Now()
		e.upload(alice, "bad", "BACKGROUND_SIMPLE", tc.body, "image/png").wantError(tc.status, tc.code)
		process(tc.body).wantError(tc.status, tc.code)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: answered after %v", tc.what, d)
		}
	}

	// Accepted kinds: stored with their upright size, processed to it.
	type kind struct {
		what string
		body []byte
		w, h int // upright
	}
	kinds := []kind{
		{"16-bit PNG", png16(t, 96, 64), 96, 64},
		{"animated WebP (its first frame)", animatedWebP(t), 75, 100},
	}
	for o := 1; o <= 8; o++ {
		w, h := 96, 64
		if o >= 5 { // 5 to 8 turn the image a quarter
			w, h = h, w
		}
		kinds = append(kinds, kind{fmt.Sprintf("EXIF orientation %d", o), withOrientation(t, jpegBytes(t, 96, 64), o), w, h})
	}
	for _, k := range kinds {
		var rec struct{ Width, Height int }
		e.upload(alice, "ok", "BACKGROUND_SIMPLE", k.body, "image/png").wantStatus(201).decode(&rec)
		if rec.Width != k.w || rec.Height != k.h {
			t.Errorf("%s: stored as %dx%d, want %dx%d", k.what, rec.Width, rec.Height, k.w, k.h)
		}
		e.do("DELETE", "/v1/content/ok", nil, alice).wantStatus(204)
		res := process(k.body).wantStatus(200)
		out, _, err := image.DecodeConfig(bytes.NewReader(res.body))
		if err != nil || out.Width != k.w || out.Height != k.h {
			t.Errorf("%s: processed to %dx%d (%v), want %dx%d", k.what, out.Width, out.Height, err, k.w, k.h)
		}
	}
}

// jpegClaiming is a small JPEG whose frame header claims w×h.
func jpegClaiming(t testing.TB, w, h int) []byte {
	t.Helper()
	b := jpegBytes(t, 64, 48)
	i := bytes.Index(b, []byte{0xFF, 0xC0})
	if i < 0 {
		t.Fatal("no SOF0 in the JPEG")
	}
	binary.BigEndian.PutUint16(b[i+5:], uint16(h))
	binary.BigEndian.PutUint16(b[i+7:], uint16(w))
	return b
}

// pngClaiming is a 10×10 PNG whose header claims w×h, checksum fixed.
func pngClaiming(t testing.TB, w, h int) []byte {
	t.Helper()
	b := pngBytes(t, 10, 10)
	binary.BigEndian.PutUint32(b[16:], uint32(w))
	binary.BigEndian.PutUint32(b[20:], uint32(h))
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// png16 is a w×h PNG of 16 bits a channel.
func png16(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA64(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// riff wraps chunks into a WebP file.
func riff(chunks ...[]byte) []byte {
	body := []byte("WEBP")
	for _, c := range chunks {
		body = append(body, c...)
	}
	out := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
	return append(out, body...)
}

// webpChunk is one RIFF chunk, padded to an even length.
func webpChunk(fourCC string, data []byte) []byte {
	c := append([]byte(fourCC), binary.LittleEndian.AppendUint32(nil, uint32(len(data)))...)
	c = append(c, data...)
	if len(data)%2 == 1 {
		c = append(c, 0)
	}
	return c
}

// le24 is v in three little-endian bytes.
func le24(v int) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16)} }

// webpCanvas is an extended WebP whose VP8X header claims a w×h canvas,
// holding the 75×100 test image.
func webpCanvas(t testing.TB, w, h int) []byte {
	t.Helper()
	vp8x := append([]byte{0, 0, 0, 0}, append(le24(w-1), le24(h-1)...)...)
	return riff(webpChunk("VP8X", vp8x), webpBytes(t)[12:])
}

// animatedWebP is a two-frame animation of the 75×100 test image.
func animatedWebP(t testing.TB) []byte {
	t.Helper()
	frame := webpBytes(t)[12:] // the VP8L chunk
	anmf := append(append(le24(0), le24(0)...), append(append(le24(74), le24(99)...), append(le24(100), 0)...)...)
	anmf = append(anmf, frame...)
	vp8x := append([]byte{0x02, 0, 0, 0}, append(le24(74), le24(99)...)...) // animation flag
	return riff(webpChunk("VP8X", vp8x), webpChunk("ANIM", []byte{0, 0, 0, 0, 0, 0}),
		webpChunk("ANMF", anmf), webpChunk("ANMF", anmf))
}

// withOrientation puts an EXIF segment with orientation o (1 to 8) right
// after the JPEG's start marker.
func withOrientation(t testing.TB, jpg []byte, o int) []byte {
	t.Helper()
	tiff := []byte("II*\x00\x08\x00\x00\x00") // little-endian, first IFD at 8
	tiff = append(tiff, 1, 0)                 // one entry
	tiff = append(tiff, 0x12, 0x01, 3, 0, 1, 0, 0, 0, byte(o), 0, 0, 0)
	tiff = append(tiff, 0, 0, 0, 0) // no next IFD
	app1 := append([]byte("Exif\x00\x00"), tiff...)
	seg := append([]byte{0xFF, 0xE1}, binary.BigEndian.AppendUint16(nil, uint16(len(app1)+2))...)
	out := append([]byte{0xFF, 0xD8}, append(seg, app1...)...)
	return append(out, jpg[2:]...)
}

// A PNG of 100 compressed text chunks, each of 8 MB of text in 8 kB (0.8
// MB in all), took 30-50 s of CPU and 2-4 GB as content and three attempts
// past the job's timeout as a photo. Text is never read: the upload is
// accepted (201, stored byte for byte) and the photo processed, in
// milliseconds of decoding, whichever kind of text chunk carries the bomb.
func TestPNGTextBomb(t *testing.T) {
	e := newEnvWith(t, library.DefaultConfig(), withEngine(runnerConfig(), carSegmenter{}))
	e.addUser("acme", "alice")
	alice := e.bearer("alice")
	for _, typ := range []string{"zTXt", "iTXt"} {
		bomb := codectest.TextBombPNG(480, 300, 100, 8<<20, typ)
		start := codectest.CPUTime()
		var rec struct{ Width, Height int }
		e.upload(alice, "bomb", "BACKGROUND_SIMPLE", bomb, "image/png").wantStatus(201).decode(&rec)
		if rec.Width != 480 || rec.Height != 300 {
			t.Errorf("%s: stored as %dx%d, want 480x300", typ, rec.Width, rec.Height)
		}
		if got := e.do("GET", "/v1/content/bomb", nil, alice).wantStatus(200).body; !bytes.Equal(got, bomb) {
			t.Errorf("%s: read back %d bytes of %d", typ, len(got), len(bomb))
		}
		e.do("DELETE", "/v1/content/bomb", nil, alice).wantStatus(204)
		if d := codectest.CPUTime() - start; d > time.Second {
			t.Errorf("%s: uploaded in %v of CPU", typ, d)
		}

		start = codectest.CPUTime()
		process := func(query string) *response {
			return e.do("POST", "/v1/process/single/free_cutout"+query, bytes.NewReader(bomb), with(alice, "Content-Type", "image/png"))
		}
		out, _, err := image.DecodeConfig(bytes.NewReader(process("").wantStatus(200).body))
		if err != nil || out.Width != 480 || out.Height != 300 {
			t.Errorf("%s: processed to %dx%d (%v), want 480x300", typ, out.Width, out.Height, err)
		}
		job := awaitJob(t, e, alice, process("?async=true").wantStatus(202))
		if job.Status != "succeeded" || job.Attempts != 1 {
			t.Errorf("%s: async job %+v, want succeeded on its first attempt", typ, job)
		}
		if d := codectest.CPUTime() - start; d > 5*time.Second {
			t.Errorf("%s: processed twice in %v of CPU", typ, d)
		}
	}
}

// A JPEG whose frame header comes after a megabyte of comment (camera
// metadata can be that long) is judged from it before the answer, as any
// other: processed when it is whole, refused before 202 with the answer a
// synchronous request gets when it is not, at once, no job queued.
func TestPhotoHeaderAfterLongMetadata(t *testing.T) {
	e := newEnvWith(t, library.DefaultConfig(), withEngine(runnerConfig(), carSegmenter{}))
	e.addUser("acme", "alice")
	alice := e.bearer("alice")
	car := drawncar.New(480, 300, 0)
	var photo bytes.Buffer
	if err := jpeg.Encode(&photo, car.Photo, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	process := func(body []byte, query string) *response {
		return e.do("POST", "/v1/process/single/free_cutout"+query, bytes.NewReader(body), with(alice, "Content-Type", "image/jpeg"))
	}

	commented := codectest.Commented(photo.Bytes(), 1<<20)
	out, _, err := image.DecodeConfig(bytes.NewReader(process(commented, "").wantStatus(200).body))
	if err != nil || out.Width != 480 || out.Height != 300 {
		t.Errorf("processed to %dx%d (%v), want 480x300", out.Width, out.Height, err)
	}
	if job := awaitJob(t, e, alice, process(commented, "?async=true").wantStatus(202)); job.Status != "succeeded" {
		t.Errorf("async job %+v, want succeeded", job)
	}

	for _, tc := range []struct {
		what   string
		body   []byte
		status int
		code   string
		msg    string
	}{
		{"a frame header claiming 10,000 x 10,000", codectest.Commented(jpegClaiming(t, 10_000, 10_000), 1<<20), 413,
			showroom.EPayloadTooLarge, "the photo is 10000x10000, 100.0 megapixels; at most 60.0 are accepted"},
		{"a frame header claiming 7 x 300", codectest.Commented(jpegClaiming(t, 7, 300), 1<<20), 422,
			showroom.EInvalidImage, "the photo is 7x300; each side must be at least 8 pixels"},
		{"no frame header", codectest.Commented(codectest.WithoutFrame(photo.Bytes()), 1<<20), 422,
			showroom.EInvalidImage, "the image's header cannot be read"},
		{"no frame header, no comment", codectest.WithoutFrame(photo.Bytes()), 422,
			showroom.EInvalidImage, "the image's header cannot be read"},
	} {
		for _, query := range []string{"", "?async=true"} {
			body := process(tc.body, query).wantError(tc.status, tc.code)
			if body["message"] != tc.msg {
				t.Errorf("%s%s: %q, want %q", tc.what, query, body["message"], tc.msg)
			}
		}
	}
	var list struct{ Jobs []any }
	e.do("GET", "/v1/process/jobs", nil, alice).wantStatus(200).decode(&list)
	if len(list.Jobs) != 2 {
		t.Errorf("%d jobs queued, want the 2 of the whole photo", len(list.Jobs))
	}
}

// asyncJob is what these tests read of a job record.
type asyncJob struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Attempts int    `json:"attempts"`
	Error    *struct {
		ErrorCode string `json:"errorCode"`
		Message   string `json:"message"`
	} `json:"error"`
}

// awaitJob waits for the job an async answer accepted to finish.
func awaitJob(t *testing.T, e *env, h map[string]string, accepted *response) asyncJob {
	t.Helper()
	var job asyncJob
	accepted.decode(&job)
	for deadline := time.Now().Add(30 * time.Second); job.Status != "succeeded" && job.Status != "failed"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("job %+v still not done", job)
		}
		e.do("GET", "/v1/process/jobs/"+job.ID, nil, h).wantStatus(200).decode(&job)
	}
	return job
}

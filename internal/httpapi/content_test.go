package httpapi_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/showroom"
)

// testImage is a w x h gradient, so encoders cannot shrink it to nothing.
func testImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	return img
}

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, testImage(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func webpBytes(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/gopher.webp")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pngHeaderOnly is a PNG signature and a valid IHDR chunk claiming w x h
// pixels, and nothing else: a decompression bomb's announcement.
func pngHeaderOnly(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk := append([]byte("IHDR"), ihdr...)
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// bearer logs username in and returns the Authorization header to use.
func (e *env) bearer(username string) map[string]string {
	e.t.Helper()
	return map[string]string{"Authorization": "Bearer " + e.login(username).AccessToken}
}

func with(h map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// upload posts b as content.
func (e *env) upload(h map[string]string, name, typ string, b []byte, contentType string) *response {
	e.t.Helper()
	return e.do("POST", "/v1/content/upload/"+name+"/"+typ, bytes.NewReader(b), with(h, "Content-Type", contentType))
}

// twoCompanies makes alice of acme and bob of beta and logs both in.
func twoCompanies(t testing.TB) (e *env, alice, bob map[string]string) {
	e = newEnv(t)
	e.addUser("acme", "alice")
	e.addUser("beta", "bob")
	return e, e.bearer("alice"), e.bearer("bob")
}

func TestUploadContent(t *testing.T) {
	e, alice, _ := twoCompanies(t)
	img := pngBytes(t, 64, 48)
	before := time.Now().Add(-time.Second).UnixMilli()
	res := e.upload(alice, "studioBlue", "BACKGROUND_SIMPLE", img, "image/png").wantStatus(http.StatusCreated)
	if loc := res.header.Get("Location"); loc != "/v1/content/studioBlue" {
		t.Errorf("Location %q", loc)
	}
	var rec map[string]any
	res.decode(&rec)
	want := map[string]any{
		"company": "acme", "contentName": "studioBlue", "contentType": "BACKGROUND_SIMPLE", "mediaType": "image/png",
		"width": float64(64), "height": float64(48), "size": float64(len(img)), "createdBy": "alice", "lastModifiedBy": "alice",
		"fullPath": "FULLPATH:" + e.url + "/v1/content/studioBlue",
	}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("%s = %v, want %v", k, rec[k], v)
		}
	}
	created := rec["createdDate"].(float64)
	if created < float64(before) || created > float64(time.Now().UnixMilli()) || rec["lastModifiedDate"] != created {
		t.Errorf("createdDate %v, lastModifiedDate %v: not now in Unix ms", created, rec["lastModifiedDate"])
	}

	// The bytes come back as they went in, with their type and an ETag.
	got := e.do("GET", "/v1/content/studioBlue", nil, alice).wantStatus(http.StatusOK)
	if !bytes.Equal(got.body, img) || got.header.Get("Content-Type") != "image/png" {
		t.Errorf("GET gave %d bytes of %s", len(got.body), got.header.Get("Content-Type"))
	}
	etag := got.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || len(etag) != 66 {
		t.Errorf("ETag %q, want a quoted SHA-256", etag)
	}
	e.do("GET", "/v1/content/studioBlue", nil, with(alice, "If-None-Match", etag)).wantStatus(http.StatusNotModified)

	// Uploading again replaces: 200, creation kept, the new bytes served.
	time.Sleep(5 * time.Millisecond)
	jpg := jpegBytes(t, 80, 60)
	res = e.upload(alice, "studioBlue", "BACKGROUND_SINGLE", jpg, "image/jpeg").wantStatus(http.StatusOK)
	var rep map[string]any
	res.decode(&rep)
	if rep["createdDate"] != created || rep["lastModifiedDate"].(float64) <= created || rep["mediaType"] != "image/jpeg" ||
		rep["contentType"] != "BACKGROUND_SIMPLE" || rep["width"] != float64(80) {
		t.Errorf("after replace: %v", rep)
	}
	got = e.do("GET", "/v1/content/studioBlue", nil, alice).wantStatus(http.StatusOK)
	if !bytes.Equal(got.body, jpg) || got.header.Get("ETag") == etag {
		t.Errorf("replaced content still serves the old bytes")
	}
	e.do("GET", "/v1/content/studioBlue", nil, with(alice, "If-None-Match", etag)).wantStatus(http.StatusOK)
}

func TestUploadFormats(t *testing.T) {
	e, alice, _ := twoCompanies(t)
	for _, tc := range []struct {
		name, typ, header, wantMedia string
		body                         []byte
		w, h                         float64
	}{
		{"png", "THUMBNAIL", "image/png", "image/png", pngBytes(t, 10, 20), 10, 20},
		{"jpeg", "POSTER", "image/jpeg", "image/jpeg", jpegBytes(t, 30, 20), 30, 20},
		{"webp", "BACKGROUND_SIMPLE", "image/webp", "image/webp", webpBytes(t), 0, 0},
		// The bytes decide, not the header.
		{"lyingHeader", "POSTER", "image/jpeg", "image/png", pngBytes(t, 5, 5), 5, 5},
		{"octets", "POSTER", "application/octet-stream", "image/jpeg", jpegBytes(t, 8, 8), 8, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec map[string]any
			e.upload(alice, tc.name, tc.typ, tc.body, tc.header).wantStatus(http.StatusCreated).decode(&rec)
			if rec["mediaType"] != tc.wantMedia || (tc.w > 0 && (rec["width"] != tc.w || rec["height"] != tc.h)) {
				t.Errorf("record %v", rec)
			}
			got := e.do("GET", "/v1/content/"+tc.name, nil, alice).wantStatus(http.StatusOK)
			if got.header.Get("Content-Type") != tc.wantMedia {
				t.Errorf("served as %s", got.header.Get("Content-Type"))
			}
		})
	}
}

func TestUploadRefused(t *testing.T) {
	e := newEnvWith(t, library.Config{MaxUploadBytes: 64 << 10, MaxPixels: 1_000_000, MaxDecodes: 1})
	e.addUser("acme", "alice")
	alice := e.bearer("alice")
	good := pngBytes(t, 20, 20)
	truncated := pngBytes(t, 200, 200)
	truncated = truncated[:len(truncated)/2]
	jpg := jpegBytes(t, 100, 100)
	for _, tc := range []struct {
		what, name, typ, ct string
		body                []byte
		status              int
		code                string
	}{
		{"punctuation", "my-bg", "POSTER", "image/png", good, 422, showroom.EInvalidName},
		{"dot", "bg.png", "POSTER", "image/png", good, 422, showroom.EInvalidName},
		{"underscore", "my_bg", "POSTER", "image/png", good, 422, showroom.EInvalidName},
		{"national letters", "gr%C3%BCn", "POSTER", "image/png", good, 422, showroom.EInvalidName},
		{"space", "my%20bg", "POSTER", "image/png", good, 422, showroom.EInvalidName},
		{"65 characters", strings.Repeat("a", 65), "POSTER", "image/png", good, 422, showroom.EInvalidName},
		{"unknown type", "bg", "BANNER", "image/png", good, 422, showroom.EInvalidName},
		{"lower-case type", "bg", "poster", "image/png", good, 422, showroom.EInvalidName},
		{"built-in name", "showroomStudio", "BACKGROUND_SIMPLE", "image/png", good, 403, showroom.EReservedName},
		{"empty body", "bg", "POSTER", "image/png", nil, 400, showroom.EInvalidBody},
		{"text", "bg", "POSTER", "image/png", []byte("hello, world"), 415, showroom.EUnsupportedMedia},
		{"gif", "bg", "POSTER", "image/png", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), 415, showroom.EUnsupportedMedia},
		{"truncated png", "bg", "POSTER", "image/png", truncated, 422, showroom.EInvalidImage},
		{"truncated jpeg", "bg", "POSTER", "image/jpeg", jpg[:len(jpg)/2], 422, showroom.EInvalidImage},
		{"png signature, garbage after", "bg", "POSTER", "image/png", append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...), 422, showroom.EInvalidImage},
		{"jpeg signature, garbage after", "bg", "POSTER", "image/jpeg", append([]byte{0xFF, 0xD8, 0xFF}, bytes.Repeat([]byte{7}, 100)...), 422, showroom.EInvalidImage},
		{"webp signature, garbage after", "bg", "POSTER", "image/webp", []byte("RIFF\x10\x00\x00\x00WEBPVP8 garbage!"), 422, showroom.EInvalidImage},
		{"header only", "bg", "POSTER", "image/png", pngHeaderOnly(10, 10), 422, showroom.EInvalidImage},
		{"100000x100000 header", "bg", "POSTER", "image/png", pngHeaderOnly(100000, 100000), 413, showroom.EPayloadTooLarge},
		{"over the pixel limit", "bg", "POSTER", "image/png", pngBytes(t, 1001, 1000), 413, showroom.EPayloadTooLarge},
		{"over the size limit", "bg", "POSTER", "image/png", bytes.Repeat([]byte{1}, 65<<10), 413, showroom.EPayloadTooLarge},
	} {
		t.Run(tc.what, func(t *testing.T) {
			e.upload(alice, tc.name, tc.typ, tc.body, tc.ct).wantError(tc.status, tc.code)
		})
	}
	// Nothing of the refused uploads was kept.
	var list []map[string]any
	e.do("GET", "/v1/content/", nil, alice).wantStatus(200).decode(&list)
	if len(list) != 1 || list[0]["contentName"] != "showroomStudio" {
		t.Errorf("after refused uploads the list is %v", list)
	}
}

// A 100000x100000 PNG header is refused from the header alone: the answer
// comes at once and nothing near its 40 GB of pixels is allocated.
func TestUploadBombRefusedFromHeader(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	start := time.Now()
	e.upload(e.bearer("alice"), "bomb", "POSTER", pngHeaderOnly(100000, 100000), "image/png").
		wantError(http.StatusRequestEntityTooLarge, showroom.EPayloadTooLarge)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refusing the bomb took %v", d)
	}
}

func TestContentListAndDelete(t *testing.T) {
	e, alice, _ := twoCompanies(t)
	e.upload(alice, "zeta", "POSTER", pngBytes(t, 4, 4), "image/png").wantStatus(201)
	e.upload(alice, "alpha", "THUMBNAIL", pngBytes(t, 4, 4), "image/png").wantStatus(201)
	var list []map[string]any
	e.do("GET", "/v1/content/", nil, alice).wantStatus(200).decode(&list)
	var names []string
	for _, c := range list {
		names = append(names, c["contentName"].(string)+"@"+c["company"].(string))
	}
	if strings.Join(names, " ") != "alpha@acme showroomStudio@system zeta@acme" {
		t.Errorf("list = %v", names)
	}
	e.do("DELETE", "/v1/content/alpha", nil, alice).wantStatus(http.StatusNoContent)
	e.do("GET", "/v1/content/alpha", nil, alice).wantError(404, showroom.EContentNotFound)
	e.do("DELETE", "/v1/content/alpha", nil, alice).wantError(404, showroom.EContentNotFound)
	e.do("DELETE", "/v1/content/showroomStudio", nil, alice).wantError(403, showroom.EReservedName)
	e.do("GET", "/v1/content/nothing", nil, alice).wantError(404, showroom.EContentNotFound)
	e.do("GET", "/v1/content/bad-name", nil, alice).wantError(404, showroom.EContentNotFound)

	// The built-in studio is there to download.
	studio := e.do("GET", "/v1/content/showroomStudio", nil, alice).wantStatus(200)
	img, err := png.Decode(bytes.NewReader(studio.body))
	if err != nil || img.Bounds().Dx() != 1920 || img.Bounds().Dy() != 1280 {
		t.Errorf("studio: %v, %v", img.Bounds(), err)
	}
}

func TestContentInUse(t *testing.T) {
	e, alice, _ := twoCompanies(t)
	e.upload(alice, "bg", "BACKGROUND_SIMPLE", pngBytes(t, 64, 64), "image/png").wantStatus(201)
	e.do("POST", "/v1/configuration/onBg", rawJSON(`[{"processorName":"DetectCarMaskProcessor"},
		{"processorName":"AddBackgroundAndCropProcessor","background":"bg"}]`), alice).wantStatus(201)
	body := e.do("DELETE", "/v1/content/bg", nil, alice).wantError(http.StatusConflict, showroom.EContentInUse)
	if !strings.Contains(body["message"].(string), "onBg") {
		t.Errorf("message %q does not name the configuration", body["message"])
	}
	e.do("GET", "/v1/content/bg", nil, alice).wantStatus(200)
	// Replacing content in use is fine.
	e.upload(alice, "bg", "BACKGROUND_SIMPLE", pngBytes(t, 32, 32), "image/png").wantStatus(200)
	e.do("DELETE", "/v1/configuration/onBg", nil, alice).wantStatus(204)
	e.do("DELETE", "/v1/content/bg", nil, alice).wantStatus(204)
}

func TestContentIsolation(t *testing.T) {
	e, alice, bob := twoCompanies(t)
	img := pngBytes(t, 16, 16)
	e.upload(alice, "secret", "POSTER", img, "image/png").wantStatus(201)

	e.do("GET", "/v1/content/secret", nil, bob).wantError(404, showroom.EContentNotFound)
	e.do("DELETE", "/v1/content/secret", nil, bob).wantError(404, showroom.EContentNotFound)
	var list []map[string]any
	e.do("GET", "/v1/content/", nil, bob).wantStatus(200).decode(&list)
	for _, c := range list {
		if c["company"] == "acme" {
			t.Errorf("bob sees acme's %v", c["contentName"])
		}
	}
	// bob's upload of the same name is bob's own and leaves alice's alone.
	other := pngBytes(t, 8, 8)
	e.upload(bob, "secret", "POSTER", other, "image/png").wantStatus(201)
	if got := e.do("GET", "/v1/content/secret", nil, alice).wantStatus(200); !bytes.Equal(got.body, img) {
		t.Error("bob's upload changed alice's content")
	}
	if got := e.do("GET", "/v1/content/secret", nil, bob).wantStatus(200); !bytes.Equal(got.body, other) {
		t.Error("bob does not get his own content")
	}
	// bob cannot use alice's content in a configuration either.
	e.do("POST", "/v1/configuration/x", rawJSON(`[{"processorName":"DetectCarMaskProcessor"},
		{"processorName":"AddPosterProcessor","poster":"onlyAcme"}]`), bob).wantError(422, showroom.EInvalidConfig)
	e.do("DELETE", "/v1/content/secret", nil, bob).wantStatus(204)
	e.do("GET", "/v1/content/secret", nil, alice).wantStatus(200)
}

// Every endpoint of the library refuses a missing token, an expired one and
// a refresh token, with the same codes as GET /v1/me.
func TestLibraryNeedsAccessToken(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	tok := e.login("alice")
	keys, err := e.db.SigningKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	expired := validClaims("access", -time.Hour)
	expired["iat"] = time.Now().Add(-25 * time.Hour).Unix()
	expiredTok := forge(t, keys[0].PrivateKey, keys[0].ID, expired)
	for _, ep := range []struct {
		method, path string
		body         func() *bytes.Reader
		ct           string
	}{
		{"POST", "/v1/content/upload/bg/POSTER", func() *bytes.Reader { return bytes.NewReader(pngBytes(t, 4, 4)) }, "image/png"},
		{"GET", "/v1/content/", nil, ""},
		{"GET", "/v1/content/bg", nil, ""},
		{"DELETE", "/v1/content/bg", nil, ""},
		{"GET", "/v1/configuration/", nil, ""},
		{"GET", "/v1/configuration/mine", nil, ""},
		{"POST", "/v1/configuration/mine", func() *bytes.Reader {
			return bytes.NewReader([]byte(`[{"processorName":"DetectCarMaskProcessor"}]`))
		}, "application/json"},
		{"DELETE", "/v1/configuration/mine", nil, ""},
		{"GET", "/v1/processors", nil, ""},
	} {
		for _, auth := range []struct {
			what, header, code string
		}{
			{"no token", "", showroom.EUnauthorized},
			{"expired", "Bearer " + expiredTok, showroom.ETokenExpired},
			{"refresh token", "Bearer " + tok.RefreshToken, showroom.EInvalidToken},
			{"garbage", "Bearer not.a.jwt", showroom.EInvalidToken},
		} {
			t.Run(ep.method+" "+ep.path+" "+auth.what, func(t *testing.T) {
				h := map[string]string{"Authorization": auth.header}
				var res *response
				if ep.body != nil {
					res = e.do(ep.method, ep.path, ep.body(), with(h, "Content-Type", ep.ct))
				} else {
					res = e.do(ep.method, ep.path, nil, h)
				}
				res.wantError(http.StatusUnauthorized, auth.code)
			})
		}
	}
	// And the real token works, with or without "Bearer ".
	e.do("GET", "/v1/content/", nil, map[string]string{"Authorization": tok.AccessToken}).wantStatus(200)
}

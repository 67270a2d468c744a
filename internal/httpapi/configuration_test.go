package httpapi_test

import (
	"bytes"
	"encoding/json"
	"image/png"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/showroom"
)

const minimal = `[{"processorName":"DetectCarMaskProcessor"}]`

func TestSaveConfiguration(t *testing.T) {
	e, alice, _ := twoCompanies(t)
	e.upload(alice, "bg", "BACKGROUND_SIMPLE", pngBytes(t, 64, 40), "image/png").wantStatus(201)
	body := `[{"processorName":"DetectCarMaskProcessor","carDetectionThreshold":0.6},
		{"processorName":"DetectCarShadowProcessor"},
		{"processorName":"SemiTransparentWindowsProcessor","windowTransparency":0.3,"windowBrightness":1.2},
		{"processorName":"AddBackgroundAndCropProcessor","background":"bg","horizonLine":0.7,"outputWidth":1920},
		{"processorName":"PlaceShadowProcessor","opacity":0.5}]`
	before := time.Now().Add(-time.Second).UnixMilli()
	res := e.do("POST", "/v1/configuration/blueStudio", rawJSON(body), alice).wantStatus(http.StatusCreated)
	if loc := res.header.Get("Location"); loc != "/v1/configuration/blueStudio" {
		t.Errorf("Location %q", loc)
	}
	var rec map[string]any
	res.decode(&rec)
	for k, v := range map[string]any{
		"company": "acme", "name": "blueStudio", "configurationType": "EXTERIOR", "cost": float64(1),
		"createdBy": "alice", "lastModifiedBy": "alice",
	} {
		if rec[k] != v {
			t.Errorf("%s = %v, want %v", k, rec[k], v)
		}
	}
	var sent, stored any
	json.Unmarshal([]byte(body), &sent)
	b, _ := json.Marshal(rec["configurations"])
	json.Unmarshal(b, &stored)
	if !reflect.DeepEqual(sent, stored) {
		t.Errorf("configurations = %s, want what was sent", b)
	}
	created := rec["createdDate"].(float64)
	if created < float64(before) || rec["lastModifiedDate"] != created {
		t.Errorf("dates %v %v", created, rec["lastModifiedDate"])
	}
	ui := rec["uiConfiguration"].(map[string]any)
	if ui["thumbnail"] != "" || !reflect.DeepEqual(ui["nameDescriptions"], map[string]any{}) ||
		ui["thumbnailFullPath"] != "FULLPATH:"+e.url+"/v1/predefined/thumbnails/custom.png" {
		t.Errorf("uiConfiguration %v", ui)
	}

	// GET answers the same record.
	var got map[string]any
	e.do("GET", "/v1/configuration/blueStudio", nil, alice).wantStatus(200).decode(&got)
	if !reflect.DeepEqual(got, rec) {
		t.Errorf("GET =\n%v\nwant\n%v", got, rec)
	}

	// Posting again overwrites: 200, creation kept.
	time.Sleep(5 * time.Millisecond)
	e.addUser("acme", "carol")
	var over map[string]any
	e.do("POST", "/v1/configuration/blueStudio", rawJSON(minimal), e.bearer("carol")).wantStatus(http.StatusOK).decode(&over)
	if over["createdDate"] != created || over["createdBy"] != "alice" || over["lastModifiedBy"] != "carol" ||
		over["lastModifiedDate"].(float64) <= created || len(over["configurations"].([]any)) != 1 {
		t.Errorf("after overwrite: %v", over)
	}

	// Names are case-sensitive: another configuration.
	e.do("POST", "/v1/configuration/BLUESTUDIO", rawJSON(minimal), alice).wantStatus(http.StatusCreated)
}

func TestSaveConfigurationObjectForm(t *testing.T) {
	e, alice, _ := twoCompanies(t)
	e.upload(alice, "thumb", "THUMBNAIL", pngBytes(t, 32, 24), "image/png").wantStatus(201)
	body := `{"configurationType":"DETAIL","configurations":[{"processorName":"DetectCarMaskProcessor"},
		{"processorName":"CleanBackgroundProcessor","color":"#f0f0f0","enableShadow":false}],
		"uiConfiguration":{"thumbnail":"thumb","nameDescriptions":{"en":{"name":"Grey","description":"On grey"},
		"de":{"name":"Grau","description":"Auf Grau"}},"thumbnailFullPath":"ignored"}}`
	var rec map[string]any
	e.do("POST", "/v1/configuration/grey", rawJSON(body), alice).wantStatus(201).decode(&rec)
	ui := rec["uiConfiguration"].(map[string]any)
	if rec["configurationType"] != "DETAIL" || ui["thumbnail"] != "thumb" ||
		ui["thumbnailFullPath"] != "FULLPATH:"+e.url+"/v1/content/thumb" ||
		ui["nameDescriptions"].(map[string]any)["de"].(map[string]any)["name"] != "Grau" {
		t.Errorf("record %v", rec)
	}
	// A record from GET can be posted back as it is.
	res := e.do("GET", "/v1/configuration/grey", nil, alice).wantStatus(200)
	e.do("POST", "/v1/configuration/grey", rawJSON(string(res.body)), alice).wantStatus(200)
	// An array body keeps the type and presentation data.
	var again map[string]any
	e.do("POST", "/v1/configuration/grey", rawJSON(minimal), alice).wantStatus(200).decode(&again)
	if again["configurationType"] != "DETAIL" || again["uiConfiguration"].(map[string]any)["thumbnail"] != "thumb" {
		t.Errorf("array overwrite lost presentation data: %v", again)
	}
	// The thumbnail is in use.
	e.do("DELETE", "/v1/content/thumb", nil, alice).wantError(409, showroom.EContentInUse)
}

func TestSaveConfigurationRefused(t *testing.T) {
	e, alice, bob := twoCompanies(t)
	e.upload(alice, "bg", "BACKGROUND_SIMPLE", pngBytes(t, 8, 8), "image/png").wantStatus(201)
	e.upload(alice, "logo", "POSTER", pngBytes(t, 8, 8), "image/png").wantStatus(201)
	e.upload(bob, "bobsBg", "BACKGROUND_SIMPLE", pngBytes(t, 8, 8), "image/png").wantStatus(201)
	many := "[" + strings.Repeat(`{"processorName":"DetectCarMaskProcessor"},`, 32) + `{"processorName":"DetectCarMaskProcessor"}]`
	type d struct {
		Pointer string `json:"pointer"`
		Problem string `json:"problem"`
	}
	for _, tc := range []struct {
		what, name, body string
		status           int
		code             string
		details          []d
	}{
		{"reserved default_", "default_mine", minimal, 403, showroom.EReservedName, nil},
		{"reserved free_", "free_x", minimal, 403, showroom.EReservedName, nil},
		{"overwriting a predefined one", "default_white", minimal, 403, showroom.EReservedName, nil},
		{"punctuation", "my-config", minimal, 422, showroom.EInvalidName, nil},
		{"underscore", "my_config", minimal, 422, showroom.EInvalidName, nil},
		{"national letters", "gr%C3%BC%C3%9Fe", minimal, 422, showroom.EInvalidName, nil},
		{"too long", strings.Repeat("x", 65), minimal, 422, showroom.EInvalidName, nil},
		{"empty body", "c", "", 400, showroom.EInvalidBody, nil},
		{"not JSON", "c", "[{", 400, showroom.EInvalidBody, nil},
		{"two values", "c", minimal + minimal, 400, showroom.EInvalidBody, nil},
		{"a string", "c", `"DetectCarMaskProcessor"`, 422, showroom.EInvalidConfig, []d{{"", "must be an array or an object"}}},
		{"empty array", "c", `[]`, 422, showroom.EInvalidConfig,
			[]d{{"", "a configuration needs at least one processor, and the first must be DetectCarMaskProcessor"}}},
		{"33 processors", "c", many, 422, showroom.EInvalidConfig,
			[]d{{"", "a configuration may hold at most 32 processors, this one has 33"}}},
		{"wrong first", "c", `[{"processorName":"PlaceCarProcessor"}]`, 422, showroom.EInvalidConfig,
			[]d{{"/0/processorName", "the first processor must be DetectCarMaskProcessor"}}},
		{"dependency after", "c", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"PlaceShadowProcessor"},
			{"processorName":"DetectCarShadowProcessor"}]`, 422, showroom.EInvalidConfig,
			[]d{{"/1/processorName", "PlaceShadowProcessor requires DetectCarShadowProcessor earlier in the list"}}},
		{"unknown processor", "c", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"MakeItRed"}]`, 422, showroom.EInvalidConfig,
			[]d{{"/1/processorName", `unknown processor "MakeItRed"; GET /v1/processors lists them`}}},
		{"no processorName", "c", `[{"processorName":"DetectCarMaskProcessor"},{"color":"#FFFFFF"}]`, 422, showroom.EInvalidConfig,
			[]d{{"/1/processorName", "is required"}}},
		{"unknown parameter", "c", `[{"processorName":"DetectCarMaskProcessor","sharpness":3}]`, 422, showroom.EInvalidConfig,
			[]d{{"/0/sharpness", "unknown parameter of DetectCarMaskProcessor"}}},
		{"wrong types", "c", `[{"processorName":"DetectCarMaskProcessor","carDetectionThreshold":"0.5"},
			{"processorName":"CleanBackgroundProcessor","enableShadow":"yes","color":16777215}]`, 422, showroom.EInvalidConfig,
			[]d{{"/0/carDetectionThreshold", "must be a number"}, {"/1/color", "must be a string"},
				{"/1/enableShadow", "must be a boolean (true or false)"}}},
		{"out of range", "c", `[{"processorName":"DetectCarMaskProcessor","carCropThreshold":-0.1},
			{"processorName":"SemiTransparentWindowsProcessor","windowTransparency":1.5,"windowBrightness":2},
			{"processorName":"AddBackgroundAndCropProcessor","background":"bg","marginLeft":0.5,"outputWidth":10000}]`,
			422, showroom.EInvalidConfig, []d{{"/0/carCropThreshold", "must be between 0 and 1"},
				{"/1/windowTransparency", "must be between 0 and 1"}, {"/2/marginLeft", "must be between 0 and 0.45"},
				{"/2/outputWidth", "must be between 64 and 8192"}}},
		{"not an integer", "c", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"ResizeProcessor","width":100.5}]`,
			422, showroom.EInvalidConfig, []d{{"/1/width", "must be an integer"}}},
		{"bad colour", "c", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"PlaceCarProcessor","background":"white"}]`,
			422, showroom.EInvalidConfig, []d{{"/1/background", "must be a colour of the form #RRGGBB"}}},
		{"short colour", "c", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"CleanBackgroundProcessor","color":"#FFF"}]`,
			422, showroom.EInvalidConfig, []d{{"/1/color", "must be a colour of the form #RRGGBB"}}},
		{"bad enum", "c", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"AddPosterProcessor","poster":"logo","position":"middle"}]`,
			422, showroom.EInvalidConfig, []d{{"/1/position", "must be one of top-left, top-right, bottom-left, bottom-right, center"}}},
		{"missing content", "c", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"AddBackgroundAndCropProcessor","background":"nope"}]`,
			422, showroom.EInvalidConfig, []d{{"/1/background", `no content named "nope"; upload it first`}}},
		{"another company's content", "c", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"AddBackgroundAndCropProcessor","background":"bobsBg"}]`,
			422, showroom.EInvalidConfig, []d{{"/1/background", `no content named "bobsBg"; upload it first`}}},
		{"content of the wrong type", "c", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"AddBackgroundAndCropProcessor","background":"logo"}]`,
			422, showroom.EInvalidConfig, []d{{"/1/background", `content "logo" is of type POSTER; BACKGROUND_SIMPLE needed`}}},
		{"required parameter missing", "c", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"AddBackgroundAndCropProcessor"}]`,
			422, showroom.EInvalidConfig, []d{{"/1/background", "is required by AddBackgroundAndCropProcessor"}}},
		{"a second background", "c", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"AddBackgroundAndCropProcessor","background":"bg"},
			{"processorName":"PlaceCarProcessor","background":"#FFFFFF"}]`, 422, showroom.EInvalidConfig,
			[]d{{"/2/background", `PlaceCarProcessor's background #FFFFFF would replace the background "bg" that AddBackgroundAndCropProcessor ` +
				`at /1 set: a configuration has one background; leave it to one of them (PlaceCarProcessor without background keeps the earlier one)`}}},
		{"object without configurations", "c", `{"configurationType":"EXTERIOR"}`, 422, showroom.EInvalidConfig,
			[]d{{"/configurations", "is required: an array of processor objects"}}},
		{"object with problems", "c", `{"configurations":[{"processorName":"DetectCarMaskProcessor","carDetectionThreshold":2}],
			"configurationType":"ROOF","extra":1,"uiConfiguration":{"thumbnail":"bg","nameDescriptions":{"english":{"name":"x"}}}}`,
			422, showroom.EInvalidConfig, []d{{"/extra", "unknown field"}, {"/configurations/0/carDetectionThreshold", "must be between 0 and 1"},
				{"/configurationType", "must be one of EXTERIOR, INTERIOR, DETAIL"},
				{"/uiConfiguration/nameDescriptions/english", "must be keyed by a language code such as en, de or pt-BR"},
				{"/uiConfiguration/thumbnail", `content "bg" is of type BACKGROUND_SIMPLE; THUMBNAIL needed`}}},
	} {
		t.Run(tc.what, func(t *testing.T) {
			body := e.do("POST", "/v1/configuration/"+tc.name, rawJSON(tc.body), alice).wantError(tc.status, tc.code)
			var got []d
			if raw, ok := body["details"]; ok {
				b, _ := json.Marshal(raw)
				json.Unmarshal(b, &got)
			}
			if !reflect.DeepEqual(got, tc.details) {
				t.Errorf("details =\n%v\nwant\n%v", got, tc.details)
			}
		})
	}
	e.do("POST", "/v1/configuration/c", bytes.NewReader([]byte(minimal)), with(alice, "Content-Type", "text/plain")).
		wantError(415, showroom.EUnsupportedMedia)
	// Nothing refused was saved.
	e.do("GET", "/v1/configuration/c", nil, alice).wantError(404, showroom.EConfigNotFound)
}

func TestConfigurationListAndPredefined(t *testing.T) {
	e, alice, _ := twoCompanies(t)
	e.do("POST", "/v1/configuration/zebra", rawJSON(minimal), alice).wantStatus(201)
	e.do("POST", "/v1/configuration/apple", rawJSON(minimal), alice).wantStatus(201)
	var list []map[string]any
	e.do("GET", "/v1/configuration/", nil, alice).wantStatus(200).decode(&list)
	var names []string
	for _, c := range list {
		names = append(names, c["name"].(string))
	}
	want := "apple default_showroom default_transparent default_white free_cutout zebra"
	if strings.Join(names, " ") != want {
		t.Errorf("list = %v, want %s", names, want)
	}
	for _, c := range list {
		if !strings.HasPrefix(c["name"].(string), "default_") && !strings.HasPrefix(c["name"].(string), "free_") {
			continue
		}
		ui := c["uiConfiguration"].(map[string]any)
		nd := ui["nameDescriptions"].(map[string]any)
		if c["company"] != "system" || c["configurationType"] != "EXTERIOR" || nd["en"] == nil || nd["de"] == nil || ui["thumbnail"] != c["name"] {
			t.Errorf("predefined %v", c)
		}
		wantCost := float64(1)
		if strings.HasPrefix(c["name"].(string), "free_") {
			wantCost = 0
		}
		if c["cost"] != wantCost {
			t.Errorf("%s costs %v, want %v", c["name"], c["cost"], wantCost)
		}
		// The thumbnail's full path serves a PNG, without a token.
		path, ok := strings.CutPrefix(ui["thumbnailFullPath"].(string), "FULLPATH:"+e.url)
		if !ok {
			t.Fatalf("thumbnailFullPath %q", ui["thumbnailFullPath"])
		}
		res := e.do("GET", path, nil, nil).wantStatus(200)
		img, err := png.Decode(bytes.NewReader(res.body))
		if err != nil || img.Bounds().Dx() != catalog.ThumbnailWidth || res.header.Get("Content-Type") != "image/png" {
			t.Errorf("thumbnail of %s: %v %v", c["name"], img.Bounds(), err)
		}
	}
	e.do("GET", "/v1/predefined/thumbnails/nothing.png", nil, nil).wantError(404, showroom.ENotFound)
	e.do("GET", "/v1/predefined/thumbnails/default_white", nil, nil).wantError(404, showroom.ENotFound)

	var white map[string]any
	e.do("GET", "/v1/configuration/default_white", nil, alice).wantStatus(200).decode(&white)
	if white["company"] != "system" || white["cost"] != float64(1) {
		t.Errorf("default_white %v", white)
	}
	// The studio configuration's background is the built-in content.
	var studio map[string]any
	e.do("GET", "/v1/configuration/default_showroom", nil, alice).wantStatus(200).decode(&studio)
	if b, _ := json.Marshal(studio["configurations"]); !strings.Contains(string(b), `"background":"showroomStudio"`) {
		t.Errorf("default_showroom = %s", b)
	}
	// Predefined ones cannot be deleted; a company may build on the studio.
	e.do("DELETE", "/v1/configuration/default_white", nil, alice).wantError(403, showroom.EReservedName)
	e.do("POST", "/v1/configuration/myStudio", rawJSON(`[{"processorName":"DetectCarMaskProcessor"},
		{"processorName":"AddBackgroundAndCropProcessor","background":"showroomStudio","horizonLine":0.72}]`), alice).wantStatus(201)
	e.do("GET", "/v1/configuration/default_nothing", nil, alice).wantError(404, showroom.EConfigNotFound)

	e.do("DELETE", "/v1/configuration/apple", nil, alice).wantStatus(204)
	e.do("GET", "/v1/configuration/apple", nil, alice).wantError(404, showroom.EConfigNotFound)
	e.do("DELETE", "/v1/configuration/apple", nil, alice).wantError(404, showroom.EConfigNotFound)
}

func TestConfigurationIsolation(t *testing.T) {
	e, alice, bob := twoCompanies(t)
	e.do("POST", "/v1/configuration/acmeOnly", rawJSON(minimal), alice).wantStatus(201)
	e.do("GET", "/v1/configuration/acmeOnly", nil, bob).wantError(404, showroom.EConfigNotFound)
	e.do("DELETE", "/v1/configuration/acmeOnly", nil, bob).wantError(404, showroom.EConfigNotFound)
	var list []map[string]any
	e.do("GET", "/v1/configuration/", nil, bob).wantStatus(200).decode(&list)
	for _, c := range list {
		if c["company"] != "system" {
			t.Errorf("bob sees %v of %v", c["name"], c["company"])
		}
	}
	// bob's configuration of the same name is his own.
	e.do("POST", "/v1/configuration/acmeOnly", rawJSON(`[{"processorName":"DetectCarMaskProcessor"},{"processorName":"DetectCarShadowProcessor"}]`), bob).
		wantStatus(201)
	var a map[string]any
	e.do("GET", "/v1/configuration/acmeOnly", nil, alice).wantStatus(200).decode(&a)
	if a["company"] != "acme" || len(a["configurations"].([]any)) != 1 {
		t.Errorf("bob's save changed alice's configuration: %v", a)
	}
	e.do("DELETE", "/v1/configuration/acmeOnly", nil, bob).wantStatus(204)
	e.do("GET", "/v1/configuration/acmeOnly", nil, alice).wantStatus(200)
}

func TestProcessorCatalog(t *testing.T) {
	e, alice, _ := twoCompanies(t)
	var got []map[string]any
	e.do("GET", "/v1/processors", nil, alice).wantStatus(200).decode(&got)
	cat := catalog.Catalog()
	if len(got) != len(cat) {
		t.Fatalf("%d processors, want %d", len(got), len(cat))
	}
	b, _ := json.Marshal(cat)
	var want []map[string]any
	json.Unmarshal(b, &want)
	for i := range cat {
		if want[i]["requires"] == nil {
			want[i]["requires"] = []any{}
		}
		if want[i]["parameters"] == nil {
			want[i]["parameters"] = []any{}
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("processor %d =\n%v\nwant\n%v", i, got[i], want[i])
		}
	}
	// Spot checks of DESIGN section 7's numbers, as a user reads them.
	byName := map[string]map[string]any{}
	for _, p := range got {
		byName[p["processorName"].(string)] = p
	}
	param := func(proc, name string) map[string]any {
		for _, p := range byName[proc]["parameters"].([]any) {
			if p.(map[string]any)["name"] == name {
				return p.(map[string]any)
			}
		}
		t.Fatalf("%s has no %s", proc, name)
		return nil
	}
	// DESIGN section 7's table, and the two extra processors, as numbers.
	for _, w := range []struct {
		proc, name, typ string
		def, min, max   any
	}{
		{"DetectCarMaskProcessor", "carDetectionThreshold", "number", 0.5, 0.0, 1.0},
		{"DetectCarMaskProcessor", "carCropThreshold", "number", 1.0, 0.0, 1.0},
		{"PlaceShadowProcessor", "opacity", "number", 0.7, 0.0, 1.0},
		{"CleanBackgroundProcessor", "enableShadow", "boolean", true, nil, nil},
		{"CleanBackgroundProcessor", "color", "string", "#FFFFFF", nil, nil},
		{"SemiTransparentWindowsProcessor", "windowTransparency", "number", 0.5, 0.0, 1.0},
		{"SemiTransparentWindowsProcessor", "windowBrightness", "number", 1.0, 0.0, 2.0},
		{"PlaceCarProcessor", "horizonLine", "number", 0.75, 0.0, 1.0},
		{"PlaceCarProcessor", "carWidth", "number", 0.8, 0.0, 1.0},
		{"PlaceCarProcessor", "carHeight", "number", 0.7, 0.0, 1.0},
		{"PlaceCarProcessor", "background", "string", "#FFFFFF", nil, nil},
		{"PlaceCarProcessor", "useKeypoints", "boolean", false, nil, nil},
		{"AddBackgroundAndCropProcessor", "background", "string", nil, nil, nil},
		{"AddBackgroundAndCropProcessor", "horizonLine", "number", 0.75, 0.0, 1.0},
		{"AddBackgroundAndCropProcessor", "marginLeft", "number", 0.05, 0.0, 0.45},
		{"AddBackgroundAndCropProcessor", "marginRight", "number", 0.05, 0.0, 0.45},
		{"AddBackgroundAndCropProcessor", "marginTop", "number", 0.05, 0.0, 0.45},
		{"AddBackgroundAndCropProcessor", "marginBottom", "number", 0.05, 0.0, 0.45},
		{"AddBackgroundAndCropProcessor", "outputWidth", "integer", nil, 64.0, 8192.0},
		{"AddBackgroundAndCropProcessor", "outputHeight", "integer", nil, 64.0, 8192.0},
		{"AddPosterProcessor", "poster", "string", nil, nil, nil},
		{"AddPosterProcessor", "position", "string", "bottom-right", nil, nil},
		{"AddPosterProcessor", "scale", "number", 0.2, 0.01, 1.0},
		{"AddPosterProcessor", "opacity", "number", 1.0, 0.0, 1.0},
		{"AddPosterProcessor", "margin", "number", 0.03, 0.0, 0.45},
		{"ResizeProcessor", "width", "integer", nil, 16.0, 8192.0},
		{"ResizeProcessor", "height", "integer", nil, 16.0, 8192.0},
		{"ResizeProcessor", "fit", "string", "contain", nil, nil},
		{"ResizeProcessor", "background", "string", "#FFFFFF", nil, nil},
	} {
		p := param(w.proc, w.name)
		if p["type"] != w.typ || p["default"] != w.def || p["minimum"] != w.min || p["maximum"] != w.max {
			t.Errorf("%s.%s = %v; want %s, default %v, range %v-%v", w.proc, w.name, p, w.typ, w.def, w.min, w.max)
		}
	}
	if n := len(byName["DetectCarShadowProcessor"]["parameters"].([]any)); n != 0 {
		t.Errorf("DetectCarShadowProcessor has %d parameters", n)
	}
	if byName["DetectCarMaskProcessor"]["cost"] != 1.0 || byName["PlaceCarProcessor"]["cost"] != 0.0 {
		t.Error("costs are not 1 for detection and 0 otherwise")
	}
	if r := byName["PlaceShadowProcessor"]["requires"].([]any); len(r) != 2 || r[1] != "DetectCarShadowProcessor" {
		t.Errorf("PlaceShadowProcessor requires %v", r)
	}
}

func TestOpenAPIServed(t *testing.T) {
	e := newEnv(t)
	res := e.do("GET", "/openapi.yaml", nil, nil).wantStatus(200)
	for _, s := range []string{"openapi: 3.0.3", "/v1/content/upload/{contentName}/{type}", "/auth/login",
		"    AddPosterProcessor: {"} {
		if !strings.Contains(string(res.body), s) {
			t.Errorf("openapi.yaml lacks %q", s)
		}
	}
}

func TestUnknownPathsAndMethods(t *testing.T) {
	e, alice, _ := twoCompanies(t)
	e.do("GET", "/v1/nothing", nil, alice).wantError(404, showroom.ENotFound)
	res := e.do("PUT", "/v1/configuration/x", rawJSON(minimal), alice)
	res.wantError(405, showroom.EMethodNotAllowed)
	if allow := res.header.Get("Allow"); allow != "DELETE, GET, HEAD, POST" {
		t.Errorf("Allow %q", allow)
	}
	e.do("GET", "/v1/content/upload/x/POSTER", nil, alice).wantError(405, showroom.EMethodNotAllowed)
}

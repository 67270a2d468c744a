package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// LibraryStore is what the content and configuration suites need: both
// stores (content in use depends on configurations), and companies to own
// them.
type LibraryStore interface {
	showroom.ContentStore
	showroom.ConfigurationStore
	showroom.AuthStore
}

func newContent(c *showroom.Company, name, key string, at time.Time) *showroom.Content {
	return &showroom.Content{CompanyID: c.ID, Name: name, Type: showroom.ContentBackground, MediaType: "image/png",
		Width: 640, Height: 480, Size: 1234, SHA256: "ab12", BlobKey: key,
		CreatedAt: at, UpdatedAt: at, CreatedBy: "alice", UpdatedBy: "alice"}
}

func mustPutContent(t *testing.T, s showroom.ContentStore, c *showroom.Content) {
	t.Helper()
	if _, err := s.PutContent(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

// Content runs the conformance suite of showroom.ContentStore.
func Content(t *testing.T, newStore func(t *testing.T) LibraryStore) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)

	t.Run("create, find, replace", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		c := newContent(a, "bg", "k1", now)
		old, err := s.PutContent(ctx, c)
		if err != nil || old != nil {
			t.Fatalf("first PutContent = %v, %v; want nil, nil", old, err)
		}
		got, err := s.FindContent(ctx, a.ID, "bg")
		if err != nil {
			t.Fatal(err)
		}
		want := *c
		want.Company = "a"
		if !reflect.DeepEqual(got, &want) {
			t.Errorf("FindContent =\n%+v\nwant\n%+v", got, &want)
		}
		later := now.Add(time.Minute)
		r := &showroom.Content{CompanyID: a.ID, Name: "bg", Type: showroom.ContentPoster, MediaType: "image/jpeg",
			Width: 10, Height: 20, Size: 99, SHA256: "cd34", BlobKey: "k2",
			CreatedAt: later, UpdatedAt: later, CreatedBy: "bob", UpdatedBy: "bob"}
		old, err = s.PutContent(ctx, r)
		if err != nil || old == nil || old.BlobKey != "k1" {
			t.Fatalf("replacing PutContent = %+v, %v; want the old record", old, err)
		}
		if !r.CreatedAt.Equal(now) || r.CreatedBy != "alice" {
			t.Errorf("replace did not keep creation: %v by %s", r.CreatedAt, r.CreatedBy)
		}
		got, _ = s.FindContent(ctx, a.ID, "bg")
		if got.BlobKey != "k2" || got.Type != showroom.ContentPoster || !got.UpdatedAt.Equal(later) || got.UpdatedBy != "bob" ||
			!got.CreatedAt.Equal(now) || got.CreatedBy != "alice" || got.Width != 10 || got.Size != 99 {
			t.Errorf("after replace: %+v", got)
		}
	})

	t.Run("names are case-sensitive", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		mustPutContent(t, s, newContent(a, "bg", "k1", now))
		mustPutContent(t, s, newContent(a, "BG", "k2", now))
		if l, _ := s.ListContent(ctx, a.ID); len(l) != 2 {
			t.Errorf("list has %d records, want 2", len(l))
		}
	})

	t.Run("companies are isolated", func(t *testing.T) {
		s := newStore(t)
		a, b := mustCompany(t, s, "a"), mustCompany(t, s, "b")
		mustPutContent(t, s, newContent(a, "bg", "ka", now))
		mustPutContent(t, s, newContent(a, "zz", "ka2", now))
		mustPutContent(t, s, newContent(b, "other", "kb", now))
		_, err := s.FindContent(ctx, b.ID, "bg")
		wantCode(t, "other company's content", showroom.EContentNotFound, err)
		_, err = s.DeleteContent(ctx, b.ID, "bg")
		wantCode(t, "deleting other company's content", showroom.EContentNotFound, err)
		la, err := s.ListContent(ctx, a.ID)
		if err != nil || len(la) != 2 || la[0].Name != "bg" || la[1].Name != "zz" || la[0].Company != "a" {
			t.Errorf("ListContent(a) = %v, %v", la, err)
		}
		lb, _ := s.ListContent(ctx, b.ID)
		if len(lb) != 1 || lb[0].Name != "other" {
			t.Errorf("ListContent(b) = %v", lb)
		}
		// The same name in two companies is two records.
		mustPutContent(t, s, newContent(b, "bg", "kb2", now))
		if c, _ := s.FindContent(ctx, a.ID, "bg"); c.BlobKey != "ka" {
			t.Errorf("company b's upload changed a's content: %+v", c)
		}
	})

	t.Run("empty list is empty, not nil", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		l, err := s.ListContent(ctx, a.ID)
		if err != nil || l == nil || len(l) != 0 {
			t.Errorf("ListContent = %#v, %v", l, err)
		}
	})

	t.Run("delete", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		mustPutContent(t, s, newContent(a, "bg", "k1", now))
		c, err := s.DeleteContent(ctx, a.ID, "bg")
		if err != nil || c.BlobKey != "k1" {
			t.Fatalf("DeleteContent = %+v, %v", c, err)
		}
		_, err = s.FindContent(ctx, a.ID, "bg")
		wantCode(t, "deleted content", showroom.EContentNotFound, err)
		_, err = s.DeleteContent(ctx, a.ID, "bg")
		wantCode(t, "deleting twice", showroom.EContentNotFound, err)
	})

	t.Run("content in use is not deleted", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		mustPutContent(t, s, newContent(a, "bg", "k1", now))
		cfg := newConfiguration(a, "studio", now)
		cfg.ContentRefs = []string{"bg"}
		if _, err := s.PutConfiguration(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		_, err := s.DeleteContent(ctx, a.ID, "bg")
		wantCode(t, "content in use", showroom.EContentInUse, err)
		if _, err := s.FindContent(ctx, a.ID, "bg"); err != nil {
			t.Errorf("content in use was deleted: %v", err)
		}
		// Replacing content in use is fine: the configuration names it.
		if _, err := s.PutContent(ctx, newContent(a, "bg", "k2", now)); err != nil {
			t.Errorf("replacing content in use: %v", err)
		}
		// Once the configuration stops using it, it can go.
		cfg.ContentRefs = nil
		if _, err := s.PutConfiguration(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteContent(ctx, a.ID, "bg"); err != nil {
			t.Errorf("delete after the configuration changed: %v", err)
		}
	})
}

func newConfiguration(c *showroom.Company, name string, at time.Time) *showroom.Configuration {
	return &showroom.Configuration{CompanyID: c.ID, Name: name, Type: showroom.ConfigExterior,
		Processors: json.RawMessage(`[{"processorName":"DetectCarMaskProcessor"}]`), Cost: 1,
		UI: showroom.UIConfiguration{Thumbnail: "", NameDescriptions: map[string]showroom.NameDescription{
			"en": {Name: "Studio", Description: "On our studio background"}}},
		CreatedAt: at, UpdatedAt: at, CreatedBy: "alice", UpdatedBy: "alice"}
}

// Configurations runs the conformance suite of showroom.ConfigurationStore.
func Configurations(t *testing.T, newStore func(t *testing.T) LibraryStore) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)

	t.Run("create, find, overwrite", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		mustPutContent(t, s, newContent(a, "bg", "k1", now))
		c := newConfiguration(a, "studio", now)
		c.ContentRefs = []string{"bg"}
		created, err := s.PutConfiguration(ctx, c)
		if err != nil || !created {
			t.Fatalf("PutConfiguration = %v, %v; want created", created, err)
		}
		got, err := s.FindConfiguration(ctx, a.ID, "studio")
		if err != nil {
			t.Fatal(err)
		}
		want := *c
		want.Company = "a"
		if !reflect.DeepEqual(got, &want) {
			t.Errorf("FindConfiguration =\n%+v\nwant\n%+v", got, &want)
		}
		later := now.Add(time.Hour)
		o := &showroom.Configuration{CompanyID: a.ID, Name: "studio", Type: showroom.ConfigDetail,
			Processors: json.RawMessage(`[{"processorName":"DetectCarMaskProcessor"},{"processorName":"DetectCarShadowProcessor"}]`),
			Cost:       2, CreatedAt: later, UpdatedAt: later, CreatedBy: "bob", UpdatedBy: "bob"}
		created, err = s.PutConfiguration(ctx, o)
		if err != nil || created {
			t.Fatalf("overwrite = %v, %v; want not created", created, err)
		}
		got, _ = s.FindConfiguration(ctx, a.ID, "studio")
		if got.Type != showroom.ConfigDetail || got.Cost != 2 || string(got.Processors) != string(o.Processors) ||
			!got.CreatedAt.Equal(now) || got.CreatedBy != "alice" || !got.UpdatedAt.Equal(later) || got.UpdatedBy != "bob" ||
			len(got.ContentRefs) != 0 {
			t.Errorf("after overwrite: %+v", got)
		}
	})

	t.Run("missing content refused", func(t *testing.T) {
		s := newStore(t)
		a, b := mustCompany(t, s, "a"), mustCompany(t, s, "b")
		mustPutContent(t, s, newContent(b, "bg", "kb", now))
		c := newConfiguration(a, "studio", now)
		c.ContentRefs = []string{"bg"} // b's, not a's
		_, err := s.PutConfiguration(ctx, c)
		wantCode(t, "another company's content", showroom.EContentNotFound, err)
		_, err = s.FindConfiguration(ctx, a.ID, "studio")
		wantCode(t, "nothing saved", showroom.EConfigNotFound, err)
	})

	t.Run("companies are isolated", func(t *testing.T) {
		s := newStore(t)
		a, b := mustCompany(t, s, "a"), mustCompany(t, s, "b")
		for _, n := range []string{"zeta", "alpha"} {
			if _, err := s.PutConfiguration(ctx, newConfiguration(a, n, now)); err != nil {
				t.Fatal(err)
			}
		}
		_, err := s.FindConfiguration(ctx, b.ID, "alpha")
		wantCode(t, "other company's configuration", showroom.EConfigNotFound, err)
		wantCode(t, "deleting other company's configuration", showroom.EConfigNotFound, s.DeleteConfiguration(ctx, b.ID, "alpha"))
		la, err := s.ListConfigurations(ctx, a.ID)
		if err != nil || len(la) != 2 || la[0].Name != "alpha" || la[1].Name != "zeta" || la[0].Company != "a" {
			t.Errorf("ListConfigurations(a) = %v, %v", la, err)
		}
		lb, err := s.ListConfigurations(ctx, b.ID)
		if err != nil || lb == nil || len(lb) != 0 {
			t.Errorf("ListConfigurations(b) = %#v, %v; want empty", lb, err)
		}
		// b may use the same name: a different configuration.
		created, err := s.PutConfiguration(ctx, newConfiguration(b, "alpha", now))
		if err != nil || !created {
			t.Errorf("b's alpha: %v, %v", created, err)
		}
	})

	t.Run("delete", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		mustPutContent(t, s, newContent(a, "bg", "k1", now))
		c := newConfiguration(a, "studio", now)
		c.ContentRefs = []string{"bg"}
		if _, err := s.PutConfiguration(ctx, c); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteConfiguration(ctx, a.ID, "studio"); err != nil {
			t.Fatal(err)
		}
		_, err := s.FindConfiguration(ctx, a.ID, "studio")
		wantCode(t, "deleted", showroom.EConfigNotFound, err)
		wantCode(t, "deleting twice", showroom.EConfigNotFound, s.DeleteConfiguration(ctx, a.ID, "studio"))
		if _, err := s.DeleteContent(ctx, a.ID, "bg"); err != nil {
			t.Errorf("content of a deleted configuration is still in use: %v", err)
		}
	})
}

// SharedConfigurationLists checks that a process which keeps configuration
// lists sees every change another process makes to the same database, at
// once, and that what it hands out is the caller's own. Each call of open
// returns another store on one and the same database, as another process
// would have.
func SharedConfigurationLists(t *testing.T, open func(t *testing.T) LibraryStore) {
	ctx := context.Background()
	writer, reader := open(t), open(t)
	co, err := writer.CreateCompany(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	names := func() string {
		t.Helper()
		list, err := reader.ListConfigurations(ctx, co.ID)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, c := range list {
			s = append(s, fmt.Sprintf("%s:%s", c.Name, c.Type))
		}
		return strings.Join(s, " ")
	}
	put := func(name, typ string) {
		t.Helper()
		c := &showroom.Configuration{CompanyID: co.ID, Name: name, Type: typ,
			Processors: json.RawMessage(`[{"processorName":"DetectCarMaskProcessor"}]`),
			UI:         showroom.UIConfiguration{NameDescriptions: map[string]showroom.NameDescription{}},
			CreatedBy:  "alice", UpdatedBy: "alice"}
		if _, err := writer.PutConfiguration(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name   string
		change func()
		want   string
	}{
		{"empty", func() {}, ""},
		{"created elsewhere", func() { put("studio", "EXTERIOR") }, "studio:EXTERIOR"},
		{"another created elsewhere", func() { put("alpha", "EXTERIOR") }, "alpha:EXTERIOR studio:EXTERIOR"},
		{"overwritten elsewhere", func() { put("studio", "INTERIOR") }, "alpha:EXTERIOR studio:INTERIOR"},
		{"deleted elsewhere", func() {
			if err := writer.DeleteConfiguration(ctx, co.ID, "alpha"); err != nil {
				t.Fatal(err)
			}
		}, "studio:INTERIOR"},
	}
	for _, s := range steps {
		s.change()
		for i := range 2 { // the second read may come from what the reader kept
			if got := names(); got != s.want {
				t.Errorf("%s, read %d: %q, want %q", s.name, i+1, got, s.want)
			}
		}
	}

	list, _ := reader.ListConfigurations(ctx, co.ID)
	list[0].Name, list[0].UI.NameDescriptions["en"] = "changed", showroom.NameDescription{Name: "changed"}
	list[0].Processors[0] = 'x'
	again, _ := reader.ListConfigurations(ctx, co.ID)
	if c := again[0]; c.Name != "studio" || len(c.UI.NameDescriptions) != 0 || c.Processors[0] != '[' {
		t.Errorf("a caller's change to a list it was given shows in the next list: %+v", c)
	}
}

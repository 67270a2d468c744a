package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
	"github.com/showroom/showroom/internal/storetest"
)

func TestContentStore(t *testing.T) {
	storetest.Content(t, func(t *testing.T) storetest.LibraryStore { return newDB(t) })
}

func TestConfigurationStore(t *testing.T) {
	storetest.Configurations(t, func(t *testing.T) storetest.LibraryStore { return newDB(t) })
}

// TestConfigurationListSeesOtherWriters checks that a process which keeps
// configuration lists sees every change another process makes to the same
// file, at once, and that what it hands out is the caller's own.
func TestConfigurationListSeesOtherWriters(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "shared.db")
	open := func() *sqlite.DB {
		db, err := sqlite.Open(ctx, file)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	writer, reader := open(), open()
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

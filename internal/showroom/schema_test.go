package showroom

import (
	"errors"
	"testing"
	"testing/fstest"
)

func TestCheckSchema(t *testing.T) {
	// Each set knows migrations 1 and 2; applied are the rest.
	set := func(what string, applied ...int) MigrationSet {
		return MigrationSet{What: what, Known: []int{1, 2}, Applied: applied}
	}
	for _, tc := range []struct {
		name string
		sets []MigrationSet
		want error // nil, ErrPendingMigrations or ErrNewerSchema
	}{
		{"same", []MigrationSet{set("showroom", 1, 2), set("river", 1, 2)}, nil},
		{"ours pending", []MigrationSet{set("showroom", 1), set("river", 1, 2)}, ErrPendingMigrations},
		{"river pending after ours newer", []MigrationSet{set("showroom", 1, 2, 3), set("river", 1)}, ErrPendingMigrations},
		{"newer only", []MigrationSet{set("showroom", 1, 2, 3), set("river", 1, 2)}, ErrNewerSchema},
	} {
		err := CheckSchema(tc.sets...)
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		case errors.Is(err, ErrPendingMigrations) && ErrorCode(err) != EUnavailable:
			t.Errorf("%s: pending is %s, want %s", tc.name, ErrorCode(err), EUnavailable)
		}
	}
}

func TestMigrationVersions(t *testing.T) {
	fsys := fstest.MapFS{
		"migrations/001_init.sql":  {},
		"migrations/010_later.sql": {},
		"migrations/README":        {},
	}
	got, err := MigrationVersions(fsys, "migrations/*.sql")
	if err != nil || len(got) != 2 || got[0] != 1 || got[1] != 10 {
		t.Errorf("got %v, %v; want [1 10]", got, err)
	}
	fsys["migrations/x_bad.sql"] = &fstest.MapFile{}
	if _, err := MigrationVersions(fsys, "migrations/*.sql"); err == nil {
		t.Error("a name without a number: no error")
	}
}

package library_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"io"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/builtinart"
	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

type fixture struct {
	lib   *library.Service
	db    *sqlite.DB
	root  string
	blobs *flakyBlobs
	store *flakyContent
	// alice is the context of a request of alice's, of acme: the caller
	// and the company the API puts there.
	alice context.Context
}

// flakyBlobs fails Put when failPut is set.
type flakyBlobs struct {
	blob.Store
	failPut bool
}

func (f *flakyBlobs) Put(ctx context.Context, key string, r io.Reader) error {
	if f.failPut {
		return errors.New("disk full")
	}
	return f.Store.Put(ctx, key, r)
}

// flakyContent fails PutContent when failPut is set.
type flakyContent struct {
	*sqlite.DB
	failPut bool
}

func (f *flakyContent) PutContent(ctx context.Context, c *showroom.Content) (*showroom.Content, error) {
	if f.failPut {
		return nil, errors.New("database is locked")
	}
	return f.DB.PutContent(ctx, c)
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	acme, err := db.CreateCompany(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	local, err := blob.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{db: db, root: root, blobs: &flakyBlobs{Store: local}, store: &flakyContent{DB: db},
		alice: showroom.NewContextWithCompany(showroom.NewContextWithPrincipal(ctx,
			&showroom.Principal{Username: "alice", Company: "acme", System: "showroom"}), acme)}
	f.lib, err = library.New(library.DefaultConfig(), library.Deps{Content: f.store, Configurations: db, Blobs: f.blobs, Images: pipeline.ContentImages{}, Art: builtinart.Art{}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// blobFiles counts the files in the blob folder, temporary ones included.
func (f *fixture) blobFiles(t testing.TB) int {
	t.Helper()
	n := 0
	filepath.WalkDir(f.root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestUploadKeepsRecordsAndBlobsInStep(t *testing.T) {
	f := newFixture(t)

	// A failed blob write leaves neither a record nor a file.
	f.blobs.failPut = true
	if _, _, err := f.lib.Upload(f.alice, "bg", "POSTER", pngOf(t, 4, 4)); err == nil {
		t.Fatal("upload with a failing blob store succeeded")
	}
	f.blobs.failPut = false
	if _, err := f.lib.Content(f.alice, "bg"); showroom.ErrorCode(err) != showroom.EContentNotFound {
		t.Errorf("record after failed blob write: %v", err)
	}
	if n := f.blobFiles(t); n != 0 {
		t.Errorf("%d files after a failed upload", n)
	}

	// A failed record write removes the blob it wrote.
	f.store.failPut = true
	if _, _, err := f.lib.Upload(f.alice, "bg", "POSTER", pngOf(t, 4, 4)); err == nil {
		t.Fatal("upload with a failing database succeeded")
	}
	f.store.failPut = false
	if n := f.blobFiles(t); n != 0 {
		t.Errorf("%d files after a failed record write", n)
	}

	// Create, replace, delete: always exactly the blobs records point at.
	if _, created, err := f.lib.Upload(f.alice, "bg", "POSTER", pngOf(t, 4, 4)); err != nil || !created {
		t.Fatalf("upload: %v, %v", created, err)
	}
	first, _ := f.lib.Content(f.alice, "bg")
	if _, created, err := f.lib.Upload(f.alice, "bg", "POSTER", pngOf(t, 8, 8)); err != nil || created {
		t.Fatalf("replace: %v, %v", created, err)
	}
	second, _ := f.lib.Content(f.alice, "bg")
	if first.BlobKey == second.BlobKey || f.blobFiles(t) != 1 {
		t.Errorf("after replace: keys %s %s, %d files", first.BlobKey, second.BlobKey, f.blobFiles(t))
	}
	// A failed replacement keeps the old content intact.
	f.store.failPut = true
	f.lib.Upload(f.alice, "bg", "POSTER", pngOf(t, 16, 16))
	f.store.failPut = false
	if c, _ := f.lib.Content(f.alice, "bg"); c.BlobKey != second.BlobKey || c.Width != 8 || f.blobFiles(t) != 1 {
		t.Errorf("after a failed replacement: %+v, %d files", c, f.blobFiles(t))
	}
	img, err := f.lib.LoadContent(f.alice, "bg")
	if err != nil || img.Bounds().Dx() != 8 {
		t.Errorf("LoadContent: %v, %v", img, err)
	}
	if err := f.lib.DeleteContent(f.alice, "bg"); err != nil {
		t.Fatal(err)
	}
	if n := f.blobFiles(t); n != 0 {
		t.Errorf("%d files after delete", n)
	}
}

func TestBuiltinContent(t *testing.T) {
	f := newFixture(t)
	img, err := f.lib.LoadContent(f.alice, catalog.StudioBackground)
	if err != nil || img.Bounds().Dx() != catalog.StudioWidth || img.Bounds().Dy() != catalog.StudioHeight {
		t.Fatalf("studio: %v, %v", img, err)
	}
	_, _, err = f.lib.Upload(f.alice, catalog.StudioBackground, "BACKGROUND_SIMPLE", pngOf(t, 4, 4))
	if showroom.ErrorCode(err) != showroom.EReservedName {
		t.Errorf("upload over the studio: %v", err)
	}
	if _, err := f.lib.LoadContent(f.alice, "nothing"); showroom.ErrorCode(err) != showroom.EContentNotFound {
		t.Errorf("missing content: %v", err)
	}
	for _, c := range catalog.PredefinedConfigurations() {
		if b, ok := f.lib.Thumbnail(c.UI.Thumbnail); !ok || len(b) == 0 {
			t.Errorf("no thumbnail for %s", c.Name)
		}
	}
}

// A run loads the content of the company its context carries (the queue
// puts the job's there), never another's of the same name; with no
// company it loads only built-in content.
func TestLoadContentIsTheContextsCompanys(t *testing.T) {
	f := newFixture(t)
	beta, err := f.db.CreateCompany(context.Background(), "beta")
	if err != nil {
		t.Fatal(err)
	}
	bob := showroom.NewContextWithCompany(showroom.NewContextWithPrincipal(context.Background(),
		&showroom.Principal{Username: "bob", Company: "beta", System: "showroom"}), beta)
	for _, u := range []struct {
		ctx  context.Context
		name string
		w    int
	}{{f.alice, "bg", 8}, {bob, "bg", 12}, {f.alice, "onlyAcme", 4}} {
		if _, _, err := f.lib.Upload(u.ctx, u.name, "BACKGROUND_SIMPLE", pngOf(t, u.w, u.w)); err != nil {
			t.Fatal(err)
		}
	}
	// A job's run has the company and no caller.
	runOf := func(c *showroom.Company) context.Context {
		return showroom.NewContextWithCompany(context.Background(), c)
	}
	acme := showroom.CompanyFromContext(f.alice)
	for _, tc := range []struct {
		ctx   context.Context
		name  string
		wantW int
	}{{runOf(acme), "bg", 8}, {runOf(beta), "bg", 12}, {runOf(acme), "onlyAcme", 4}, {runOf(beta), catalog.StudioBackground, catalog.StudioWidth}} {
		if img, err := f.lib.LoadContent(tc.ctx, tc.name); err != nil || img.Bounds().Dx() != tc.wantW {
			t.Errorf("%s's %s: %v, %v; want %d wide", showroom.CompanyFromContext(tc.ctx).Name, tc.name, img, err, tc.wantW)
		}
	}
	if _, err := f.lib.LoadContent(runOf(beta), "onlyAcme"); showroom.ErrorCode(err) != showroom.EContentNotFound {
		t.Errorf("beta's run loads acme's content: %v", err)
	}
	if _, err := f.lib.LoadContent(context.Background(), "bg"); showroom.ErrorCode(err) != showroom.EInternal {
		t.Errorf("a run without a company: %v, want an internal error", err)
	}
	if img, err := f.lib.LoadContent(context.Background(), catalog.StudioBackground); err != nil || img == nil {
		t.Errorf("built-in content without a company: %v", err)
	}
}

func TestConfigDefaultsValidate(t *testing.T) {
	if err := library.DefaultConfig().Validate(); err != nil {
		t.Error(err)
	}
	for _, c := range []library.Config{{MaxUploadBytes: 0, MaxPixels: 1, MaxDecodes: 1}, {MaxUploadBytes: 1, MaxPixels: 0, MaxDecodes: 1},
		{MaxUploadBytes: 1, MaxPixels: 1, MaxDecodes: 0}} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

# Showroom's front door. `make run` and `make test` do all set-up on a fresh
# machine: system packages, the model files, the Go build. Everything fetched
# is cached outside the repository, under $(CACHE).

SHELL := /bin/bash
GO ?= go
CACHE ?= $(HOME)/.cache/showroom
TOOLS := $(CACHE)/bin
export SHOWROOM_MODEL_DIR ?= $(CACHE)/models
# Memory settings for ONNX Runtime and Go (why: cmd/showroom/tunables.go, which
# sets the same when the binary starts); tests and benchmarks get them here.
export GLIBC_TUNABLES ?= glibc.malloc.hugetlb=1:glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=1048576
export GODEBUG ?= madvdontneed=0
export GOGC ?= 25
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.Version=$(VERSION)
DATA_DIR ?= ./data
SOAK_DURATION ?= 10m
STATICCHECK_VERSION := v0.7.0
# The S3 server the blob tests start (internal/blob/blobtest); its version is
# in its file name, so that changing it here installs the new one.
VERSITYGW_VERSION := v1.8.0
VERSITYGW := $(TOOLS)/versitygw-$(VERSITYGW_VERSION)
export SHOWROOM_VERSITYGW ?= $(VERSITYGW)
# The PostgreSQL server the tests use (internal/postgres/pgtest): a private
# one scripts/postgres.sh starts for the run and stops after it, or the one
# SHOWROOM_TEST_POSTGRES_URL names when it is set. Either way the variable is
# set for go test, so a server that does not answer fails 'make test' instead
# of skipping its PostgreSQL tests (the multi-process test among them).
WITH_POSTGRES := CACHE="$(CACHE)" scripts/postgres.sh
TEST_FUZZTIME ?= 3s
FUZZTIME ?= 2m

.PHONY: all run build test fuzz lint bench soak models deps chromium postgres versitygw gallery glass-model console-screenshots clean

all: build

## deps: install system packages the build needs (libvips)
deps:
	@scripts/system-deps.sh

## chromium: install Debian's Chromium, which the web console's browser tests drive headless
chromium:
	@scripts/chromium.sh

# make test runs the console's browser tests, not skips them.
test: chromium

## postgres: install Debian's PostgreSQL server, of which make test starts a private cluster (scripts/postgres.sh)
postgres:
	@scripts/postgres.sh --install

# make test runs the PostgreSQL tests, not skips them.
test: postgres

## models: fetch and verify the ONNX Runtime library and the model files
models:
	@scripts/models.sh "$(SHOWROOM_MODEL_DIR)"

## versitygw: install the S3 server the tests run against (go install, about 2 minutes the first time)
# Built in a folder of its own and moved into place, so that an interrupted
# build never leaves a binary that looks installed.
versitygw:
	@test -x "$(VERSITYGW)" || { mkdir -p "$(TOOLS)" && tmp=$$(mktemp -d "$(TOOLS)/.versitygw-XXXXXX") && \
		GOBIN="$$tmp" $(GO) install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION) && \
		mv "$$tmp/versitygw" "$(VERSITYGW)"; rc=$$?; rm -rf "$$tmp"; exit $$rc; }

## build: write bin/showroom
build: deps
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/showroom ./cmd/showroom

## run: start every role on 127.0.0.1:8080 with data in $(DATA_DIR)
run: build models
	bin/showroom serve --demo --log-format text --data-dir "$(DATA_DIR)"

## test: the whole test suite (CI runs exactly this), each fuzz target for a few seconds first;
## ends with a summary of what was skipped and why (scripts/gotest.sh)
test: deps models versitygw
	$(GO) vet ./...
	GO=$(GO) scripts/fuzz.sh $(TEST_FUZZTIME)
	GO=$(GO) $(WITH_POSTGRES) scripts/gotest.sh -count=1 -timeout 20m ./...

## console-screenshots: the web console's browser test alone; its screenshots go to artifacts/console
console-screenshots: deps models chromium
	SHOWROOM_CONSOLE_ARTIFACTS=$(CURDIR)/artifacts/console $(GO) test -count=1 -run '^TestConsole$$' ./cmd/showroom

## fuzz: every fuzz target for $(FUZZTIME) each (a crash is saved under the package's testdata/fuzz: commit it with the fix)
fuzz: deps models
	GO=$(GO) scripts/fuzz.sh $(FUZZTIME)

## lint: vet, gofmt and staticcheck
lint: deps
	$(GO) vet ./...
	@out=$$(gofmt -l cmd internal); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@test -x "$(TOOLS)/staticcheck" || GOBIN="$(TOOLS)" $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	"$(TOOLS)/staticcheck" ./...

## bench: the benchmarks recorded in docs/benchmarks.md, then the built binary's peak memory
## with one and two workers (scripts/servepeak.sh)
bench: build models postgres
	$(WITH_POSTGRES) $(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...
	scripts/servepeak.sh 1 1 6
	scripts/servepeak.sh 2 2 8

## soak: $(SOAK_DURATION) of mixed traffic at saturation against auth, api and worker processes, a worker
## killed and the database locked on the way; prints a markdown report (docs/benchmarks.md, "Soak")
## and fails if a request was lost or answered outside docs/api.md, or memory grew (SOAK_FLAGS: more flags)
soak: build models
	$(GO) run ./cmd/soak -bin bin/showroom -duration $(SOAK_DURATION) $(SOAK_FLAGS)

## gallery: contact sheets of every configuration on the dev, glass and 12 MP photos, in gallery/
## (masks are cached in $(CACHE)/gallery-masks: clear it after changing the segmentation)
gallery: deps models
	$(GO) run ./cmd/gallery --images ../shared/testdata/cars,../shared/testdata/glass,../shared/testdata/large --out gallery --mask-cache $(CACHE)/gallery-masks

## glass-model: retrain the deep glass model on ../shared/testdata/glass and glass-more (prints its 5-fold cross-validated scores)
glass-model: models
	nice $(GO) run ./cmd/glasstrain --images ../shared/testdata/glass,../shared/testdata/glass-more --out internal/pipeline/glass_probe.json --mask-cache $(CACHE)/glass-masks

clean:
	rm -rf bin

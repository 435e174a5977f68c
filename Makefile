# bigfoot: build, demo and tests.
#
#   make build   build bin/bigfoot
#   make demo    install what is missing, build bin/bigfoot, run it on a racy example
#   make test    go vet, unit tests, end-to-end tests and Go's race-detector suite
#   make lint    staticcheck (its default checks, U1000 among them) in every build configuration
#   make bench   the full comparison (bigfoot bench), written to bench-results/
#   make corpus  real modules' suites under go test -race and bigfoot test, compared (corpus-results/)
#   make corpus-verify  the precise-checks verifier over the corpus's suites (corpus-verify-results/)
#   make e2e-all-modes  the end-to-end tests and the bench's workloads in every placement mode
#   make difftest  the runtime's differential tests, long (1.25M shadow verdicts, 40,000 traces of deferred checks)
#   make typecheck-all  every std package and corpus module instrumented in every mode and type-checked

GO ?= go
BIGFOOT := bin/bigfoot

.PHONY: all build demo test lint bench corpus corpus-verify e2e-all-modes difftest typecheck-all deps z3 clean

all: build

build:
	@[ -e /usr/include/z3.h ] || { echo "make: bigfoot needs Z3's headers and library: run 'make z3' or 'apt-get install -y libz3-dev'"; exit 1; }
	$(GO) build -o $(BIGFOOT) ./cmd/bigfoot

# deps installs what is missing: bigfoot links Z3 (Debian's libz3-dev)
# through cgo for its placement pass, so the build needs it.
deps:
	@command -v $(GO) >/dev/null || { echo "make: Go is required: https://go.dev/dl/ (Go 1.26.8, the version bigfoot is tested with)"; exit 1; }
	@[ -e /usr/include/z3.h ] || $(MAKE) z3

z3:
	@if [ -e /usr/include/z3.h ]; then echo "libz3-dev is installed"; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y libz3-dev; \
	else sudo apt-get update && sudo apt-get install -y libz3-dev; fi

# demo runs the racy example; it exits with status 66, as a -race binary
# does after a race, which is what we want to show, so 66 is not a failure.
demo: deps build
	@echo "$$ cd testdata/demo && ../../$(BIGFOOT) run ."
	@cd testdata/demo && ../../$(BIGFOOT) run . ; status=$$?; \
	echo "exit status $$status"; \
	if [ $$status -ne 66 ] && [ $$status -ne 0 ]; then exit $$status; fi

# test also runs the runtime's own tests under go's race detector: the
# runtime must itself be race-free.
test: deps
	$(GO) vet ./...
	$(GO) test -race ./detector/... ./shadow/... ./internal/spin/...
	$(GO) test -timeout 40m ./...

# lint runs staticcheck (from the module proxy, at a version that knows
# Go 1.26), its default checks with U1000 (unused code) among them, with
# each set of build tags the runtime has. Hooks that only the linker
# references (//go:linkname) are marked with //lint:ignore U1000 where
# they are declared; every other //lint:ignore says why the code is meant.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint:
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tags bigfoot_count ./detector/... ./shadow/...
	$(GO) run $(STATICCHECK) -tags bigfoot_verify ./detector/... ./shadow/...

# e2e-all-modes runs the end-to-end tests of cmd/bigfoot and the bench's
# workloads in redcard and slimstate as well (the bench's also in
# fasttrack, and its verifier in slimstate): each mode's instrumented
# standard library is a build of its own, which make test leaves to Go's
# race suite (racesuite runs in every mode).
e2e-all-modes:
	$(GO) test -count=1 -timeout 90m ./cmd/bigfoot/ ./bench/ -args -allmodes

# difftest runs the differential tests of the runtime against FastTrack
# models (the shadow's, byte-precise; the deferred checks') ten times as
# long as go test does.
difftest:
	$(GO) test -count=1 -timeout 30m -run 'TestShadowDifferential' ./shadow/ -args -bigfoot.long
	$(GO) test -count=1 -timeout 30m -run 'TestDeferredDifferential' ./detector/ -args -bigfoot.long

# typecheck-all instruments every package of the standard library and
# every module of corpus/modules.txt (downloaded) in every mode and
# type-checks the result (go test -short checks a subset of the library).
# It prints each module's and mode's result as it ends (-v), so a run cut
# short still says what passed; TYPECHECK_STD=short TYPECHECK_CORPUS=a,b
# checks the library's short subset and the modules whose paths contain a
# or b.
TYPECHECK_STD ?= all
TYPECHECK_CORPUS ?= all
typecheck-all:
	$(GO) test -v -count=1 -timeout 4h -run 'TestTypecheckStd|TestTypecheckCorpus' ./instrument/ -args -std=$(TYPECHECK_STD) -corpus=$(TYPECHECK_CORPUS)

# bench runs every workload plain, under go -race and in each bigfoot mode,
# BENCH_RUNS times each, and writes the tables and chart to bench-results/.
BENCH_RUNS ?= 3
bench: build
	$(BIGFOOT) bench -runs $(BENCH_RUNS) -o bench-results

# corpus runs the suites of the modules in corpus/modules.txt (downloaded
# from the module proxy) under go test -race and bigfoot test, CORPUS_RUNS
# times each, interleaved, and fails unless bigfoot builds and passes what
# go -race does, reports no race of its own and stays within 3x its wall
# time. CORPUS_FLAGS adds options, e.g. CORPUS_FLAGS='-only zap,logrus'.
CORPUS_RUNS ?= 1
CORPUS_FLAGS ?=
corpus: build
	$(GO) run ./corpus/cmd/corpus -bigfoot $(BIGFOOT) -runs $(CORPUS_RUNS) -o corpus-results $(CORPUS_FLAGS)

# corpus-verify runs the corpus's suites under bigfoot test -tags
# bigfoot_verify and fails on any uncovered access or illegitimate check.
# CORPUS_FLAGS='-eachtest -only MODULE' runs each test in a process of its
# own instead, bounded by -timeout (default 10m) each.
corpus-verify: build
	$(GO) run ./corpus/cmd/corpus -bigfoot $(BIGFOOT) -tools bigfoot -tags bigfoot_verify -o corpus-verify-results $(CORPUS_FLAGS)

clean:
	rm -rf bin

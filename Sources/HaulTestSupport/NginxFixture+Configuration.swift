import Foundation

extension NginxFixture {
  /// Writes `nginx.conf` (and the folders it names) into `directory`.
  static func writeConfiguration(
    in directory: TemporaryDirectory, port: Int, tlsPort: Int?, http2: Bool = false
  ) throws {
    let d = directory.path
    for folder in ["root/upload", "tmp"] {
      try FileManager.default.createDirectory(
        atPath: directory.file(folder), withIntermediateDirectories: true)
    }
    // Workers run as the fixture's user so they can read and write the temporary directory;
    // as root that needs saying (nginx would otherwise switch to `nobody`).
    let user = geteuid() == 0 ? "user root;" : ""
    let redirects = """
          location /slow/ {
            limit_rate 1m;
          }
          location /to-http/ {
            rewrite ^/to-http(/.*)$ http://127.0.0.1:\(port)$1 redirect;
          }
          location /to-https/ {
            rewrite ^/to-https(/.*)$ https://127.0.0.1:\(tlsPort ?? 0)$1 redirect;
          }
      """
    var tlsServer = ""
    if let tlsPort {
      tlsServer = """
          server {
            listen 127.0.0.1:\(tlsPort) ssl\(http2 ? " http2" : "");
            server_name localhost;
            ssl_certificate \(d)/cert.pem;
            ssl_certificate_key \(d)/key.pem;
            root \(d)/root;
        \(redirects)
          }
        """
    }
    let config = """
      daemon off;
      master_process on;
      worker_processes 1;
      \(user)
      pid \(d)/nginx.pid;
      error_log \(d)/error.log warn;
      events { worker_connections 512; }
      http {
        log_format haul '$request_method $request_uri $status $body_bytes_sent';
        access_log \(d)/access.log haul;
        log_format timing '$server_protocol $connection $msec $request_time $status $request_uri';
        access_log \(d)/timing.log timing;
        client_body_temp_path \(d)/tmp/body;
        proxy_temp_path \(d)/tmp/proxy;
        fastcgi_temp_path \(d)/tmp/fastcgi;
        uwsgi_temp_path \(d)/tmp/uwsgi;
        scgi_temp_path \(d)/tmp/scgi;
        default_type application/octet-stream;
        sendfile on;
        tcp_nopush on;
        keepalive_timeout 65;
        keepalive_requests 100000;
        etag on;
        server {
          listen 127.0.0.1:\(port);
          server_name localhost;
          root \(d)/root;
          location /upload/ {
            dav_methods PUT;
            create_full_put_path on;
            client_max_body_size 0;
          }
          location /listed/ {
            autoindex on;
          }
          location /listed-json/ {
            alias \(d)/root/listed/;
            autoindex on;
            autoindex_format json;
          }
          location /listed/blocked/ {
            return 403;
          }
          location /listed-json/blocked/ {
            return 403;
          }
          location /echo {
            return 200 "ua=$http_user_agent range=$http_range if-range=$http_if_range \
      x-test=$http_x_test accept-encoding=$http_accept_encoding accept=$http_accept\\n";
          }
      \(redirects)
        }
      \(tlsServer)
      }

      """
    try config.write(toFile: directory.file("nginx.conf"), atomically: true, encoding: .utf8)
  }

  /// Makes a self-signed certificate for `127.0.0.1` (`cert.pem`, `key.pem`) with openssl.
  static func makeCertificate(in directory: TemporaryDirectory) throws {
    let process: Process
    do {
      process = try Process.daemon(
        "/usr/bin/openssl",
        [
          "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
          "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
          "-keyout", directory.file("key.pem"), "-out", directory.file("cert.pem"),
        ])
    } catch {
      throw FixtureError(
        "cannot run /usr/bin/openssl (install the Debian package `openssl`): \(error)")
    }
    guard process.waitForExit() == 0 else {
      throw FixtureError("openssl could not make a test certificate")
    }
  }
}

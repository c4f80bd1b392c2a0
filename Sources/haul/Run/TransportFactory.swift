import HaulCore
import HaulCurl
import HaulURLSession

/// Creates the transport `--transport` names. The CLI is the only place that picks one.
enum TransportFactory {
  static func make(_ choice: TransportChoice, options: TransportOptions) -> any Transport {
    switch choice {
    case .curl: CurlTransport(options: options)
    case .urlsession: URLSessionTransport(options: options)
    }
  }

  /// Whether a manifest run through `choice` must refuse IPv6 literal hosts before any
  /// transfer (`Manifest.refusesIPv6Literals`).
  static func refusesIPv6Literals(_ choice: TransportChoice) -> Bool {
    switch choice {
    case .curl: false
    case .urlsession: !URLSessionTransport.reachesIPv6Literals
    }
  }

  /// Whether uploads through the IETF resumable upload draft are refused before any transfer
  /// with `choice` (`Manifest.refusesResumableIETF`): URLSession on Linux takes an interim
  /// response for the final one, so the draft's `104` would fail every creation request.
  static func refusesIETFUploads(_ choice: TransportChoice) -> Bool {
    switch choice {
    case .curl: false
    case .urlsession: true
    }
  }

  /// The usage error for `--cacert` with `choice`, or nil when `choice` applies it.
  static func extraCACertificatesRefusal(_ choice: TransportChoice, command: String)
    -> UsageError?
  {
    switch choice {
    case .curl: nil
    case .urlsession:
      URLSessionTransport.trustsExtraCACertificates
        ? nil
        : UsageError(
          "--cacert needs --transport curl: the urlsession transport trusts only the system"
            + " CA store (corelibs on Linux sets no CA file while libcurl has a default one)",
          command: command)
    }
  }
}

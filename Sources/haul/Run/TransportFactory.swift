import HaulCore
import HaulCurl

/// Creates the transport `--transport` names. The CLI is the only place that picks one.
enum TransportFactory {
  static func make(_ choice: TransportChoice, options: TransportOptions) throws(UsageError)
    -> any Transport
  {
    switch choice {
    case .curl:
      return CurlTransport(options: options)
    case .urlsession:
      throw UsageError("--transport urlsession is not yet available", command: "run")
    }
  }
}

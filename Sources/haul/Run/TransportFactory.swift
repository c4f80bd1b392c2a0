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
}

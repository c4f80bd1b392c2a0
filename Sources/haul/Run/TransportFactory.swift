import HaulCore

/// Creates the transport `--transport` names. The CLI is the only place that picks one.
enum TransportFactory {
  static func make(_ choice: TransportChoice, options: TransportOptions) throws(UsageError)
    -> any Transport
  {
    throw UsageError("--transport \(choice.rawValue) is not built in yet", command: "run")
  }
}

import Foundation
import HaulCore

/// `--s3` put together: the credentials and region found as the AWS CLI finds them, the
/// endpoint `s3://` URLs map to, and the interceptor that signs requests to it.
package struct S3Setup: Sendable {
  /// Where credentials and region came from.
  package let configuration: AWSConfiguration
  /// The endpoint; give it to `Manifest.s3`.
  package let endpoint: S3Endpoint
  /// The signer; give it to `SchedulerOptions.interceptor`.
  package let interceptor: S3SigningInterceptor

  /// Resolves `--s3-endpoint` (`endpoint`; AWS's endpoint of the region when `nil`),
  /// `--s3-region` and `--s3-addressing` (the config file's `addressing_style` when `nil`)
  /// with the credentials of `environment` and the AWS files.
  package static func resolve(
    endpoint: String?, region: String?, addressing: S3Addressing?,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    readFile: (String) -> String? = AWSConfiguration.readFile
  ) -> Result<S3Setup, S3SetupError> {
    let configuration: AWSConfiguration
    do throws(TransferError) {
      configuration = try AWSConfiguration.resolve(
        environment: environment, region: region, readFile: readFile)
    } catch {
      return .failure(S3SetupError(error.message))
    }
    let style = addressing ?? configuration.addressing
    let resolved: S3Endpoint
    if let endpoint {
      switch S3Endpoint.custom(endpoint, addressing: style) {
      case .success(let value): resolved = value
      case .failure(let problem): return .failure(S3SetupError("--s3-endpoint \(problem.reason)"))
      }
    } else {
      resolved = S3Endpoint.aws(region: configuration.region, addressing: style)
    }
    let signer = SigV4Signer(credentials: configuration.credentials, region: configuration.region)
    return .success(
      S3Setup(
        configuration: configuration, endpoint: resolved,
        interceptor: S3SigningInterceptor(signer: signer, endpoint: resolved)))
  }
}

/// Why `--s3` cannot start: no usable credentials, or a bad endpoint. Never holds a secret.
package struct S3SetupError: Error, Sendable, Hashable, CustomStringConvertible {
  package var message: String
  package init(_ message: String) { self.message = message }
  package var description: String { message }
}

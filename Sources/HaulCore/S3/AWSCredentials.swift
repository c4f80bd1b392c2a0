/// An AWS access key: the key ID, its secret and, for temporary credentials, the session
/// token.
///
/// The secret and the token are secrets: `description` and `debugDescription` show the key
/// ID alone, so interpolating credentials into a message cannot leak them.
public struct AWSCredentials: Sendable, Hashable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The access key ID (`AKIA...`, `ASIA...`); not a secret, it names the key.
  public var accessKeyID: String
  /// The secret access key. Never printed.
  public var secretAccessKey: String
  /// The session token of temporary credentials, sent as `X-Amz-Security-Token`. Never
  /// printed.
  public var sessionToken: String?

  public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
    self.accessKeyID = accessKeyID
    self.secretAccessKey = secretAccessKey
    self.sessionToken = sessionToken
  }

  public var description: String {
    "AWS access key \(accessKeyID)\(sessionToken == nil ? "" : " (temporary)")"
  }

  public var debugDescription: String { description }
}

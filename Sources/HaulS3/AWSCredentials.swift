import HaulCore

/// An AWS access key: the key ID, its secret and, for temporary credentials, the session
/// token.
///
/// The secret and the token are secrets: `description` and `debugDescription` show the key
/// ID alone, so interpolating credentials into a message cannot leak them.
package struct AWSCredentials: Sendable, Hashable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The access key ID (`AKIA...`, `ASIA...`); not a secret, it names the key.
  package var accessKeyID: String
  /// The secret access key. Never printed.
  package var secretAccessKey: String
  /// The session token of temporary credentials, sent as `X-Amz-Security-Token`. Never
  /// printed.
  package var sessionToken: String?

  package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
    self.accessKeyID = accessKeyID
    self.secretAccessKey = secretAccessKey
    self.sessionToken = sessionToken
  }

  package var description: String {
    "AWS access key \(accessKeyID)\(sessionToken == nil ? "" : " (temporary)")"
  }

  package var debugDescription: String { description }
}

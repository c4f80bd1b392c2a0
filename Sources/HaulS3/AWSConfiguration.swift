import Foundation
import HaulCore

/// The credentials, region and addressing style for `--s3`, found where the AWS CLI looks
/// for them, in its order:
///
/// 1. Credentials: `AWS_ACCESS_KEY_ID` with `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`,
///    or the older `AWS_SECURITY_TOKEN`); else the profile's `aws_access_key_id`,
///    `aws_secret_access_key` and `aws_session_token` from the shared credentials file
///    (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`, section `[NAME]`); else
///    from the config file (`AWS_CONFIG_FILE`, default `~/.aws/config`, section
///    `[profile NAME]`, or `[default]`).
/// 2. The profile: `AWS_PROFILE`, else `AWS_DEFAULT_PROFILE`, else `default`. A profile
///    named explicitly must exist in one of the files.
/// 3. The region: `--s3-region`, else `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the
///    profile's `region` in the config file, else `us-east-1`.
/// 4. The addressing style: `--s3-addressing`, else the profile's `s3 = addressing_style`
///    (`path` or `virtual`; `auto` means the default) in the config file.
///
/// SSO, `credential_process`, assumed roles and instance metadata are not read.
package struct AWSConfiguration: Sendable, Hashable {
  /// The key to sign with.
  package var credentials: AWSCredentials
  /// The region requests are signed for (and the default AWS endpoint's).
  package var region: String
  /// The addressing style the config file asks for, if any.
  package var addressing: S3Addressing?
  /// The profile whose settings were read.
  package var profile: String

  /// The region used when nothing names one: AWS's oldest, which serves the global
  /// endpoint.
  package static let defaultRegion = "us-east-1"

  package init(
    credentials: AWSCredentials, region: String, addressing: S3Addressing? = nil,
    profile: String = "default"
  ) {
    self.credentials = credentials
    self.region = region
    self.addressing = addressing
    self.profile = profile
  }

  /// Resolves the settings from `environment` and the files that `readFile` returns
  /// (`nil` for a file that does not exist). `region` is `--s3-region`, when given.
  ///
  /// Throws `auth` when no credentials are found, when only half of a key is given, or
  /// when a profile named by `AWS_PROFILE` is in neither file. Messages never hold a secret.
  package static func resolve(
    environment: [String: String], region: String? = nil,
    readFile: (String) -> String? = AWSConfiguration.readFile
  ) throws(TransferError) -> AWSConfiguration {
    func variable(_ name: String) -> String? {
      guard let value = environment[name], !value.isEmpty else { return nil }
      return value
    }
    let home = variable("HOME") ?? NSHomeDirectory()
    func expand(_ path: String) -> String {
      path == "~" || path.hasPrefix("~/") ? home + path.dropFirst() : path
    }
    let credentialsPath = expand(variable("AWS_SHARED_CREDENTIALS_FILE") ?? "~/.aws/credentials")
    let configPath = expand(variable("AWS_CONFIG_FILE") ?? "~/.aws/config")
    let credentialsFile = readFile(credentialsPath).map(AWSConfigFile.init(parsing:))
    let configFile = readFile(configPath).map(AWSConfigFile.init(parsing:))

    let namedProfile = variable("AWS_PROFILE") ?? variable("AWS_DEFAULT_PROFILE")
    let profile = namedProfile ?? "default"
    let credentialsSection = credentialsFile?.sections[profile] != nil ? profile : nil
    let configSection = configFile?.configProfileSection(profile)
    if let namedProfile, credentialsSection == nil, configSection == nil {
      throw TransferError(
        .auth,
        "the AWS profile \(ManifestText.quoted(namedProfile)) is in neither "
          + "\(credentialsPath) nor \(configPath)"
      )
    }

    let credentials: AWSCredentials
    if let fromEnvironment = try environmentCredentials(variable) {
      credentials = fromEnvironment
    } else if let credentialsFile, let credentialsSection,
      let fromFile = try fileCredentials(
        credentialsFile, section: credentialsSection, path: credentialsPath)
    {
      credentials = fromFile
    } else if let configFile, let configSection,
      let fromFile = try fileCredentials(configFile, section: configSection, path: configPath)
    {
      credentials = fromFile
    } else {
      throw TransferError(
        .auth,
        "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile "
          + "\(ManifestText.quoted(profile)) aws_access_key_id and aws_secret_access_key in "
          + "\(credentialsPath)"
      )
    }

    let configuredRegion = configSection.flatMap { configFile?.value("region", in: $0) }
    let chosenRegion =
      region ?? variable("AWS_REGION") ?? variable("AWS_DEFAULT_REGION")
      ?? configuredRegion.flatMap { $0.isEmpty ? nil : $0 } ?? defaultRegion
    let style = configSection.flatMap { configFile?.nested("s3", in: $0)["addressing_style"] }
    return AWSConfiguration(
      credentials: credentials, region: chosenRegion,
      addressing: style.flatMap(S3Addressing.init(rawValue:)), profile: profile)
  }

  /// The contents of the file at `path`, or `nil` when it cannot be read.
  package static func readFile(_ path: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return String(decoding: data, as: UTF8.self)
  }

  private static func environmentCredentials(_ variable: (String) -> String?)
    throws(TransferError) -> AWSCredentials?
  {
    let id = variable("AWS_ACCESS_KEY_ID")
    let secret = variable("AWS_SECRET_ACCESS_KEY")
    guard let id, let secret else {
      if id != nil || secret != nil {
        throw TransferError(
          .auth, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together")
      }
      return nil
    }
    return AWSCredentials(
      accessKeyID: id, secretAccessKey: secret,
      sessionToken: variable("AWS_SESSION_TOKEN") ?? variable("AWS_SECURITY_TOKEN"))
  }

  private static func fileCredentials(_ file: AWSConfigFile, section: String, path: String)
    throws(TransferError) -> AWSCredentials?
  {
    let id = file.value("aws_access_key_id", in: section).flatMap { $0.isEmpty ? nil : $0 }
    let secret = file.value("aws_secret_access_key", in: section).flatMap {
      $0.isEmpty ? nil : $0
    }
    guard let id, let secret else {
      if id != nil || secret != nil {
        throw TransferError(
          .auth,
          "\(path) [\(section)] needs both aws_access_key_id and aws_secret_access_key")
      }
      return nil
    }
    let token =
      file.value("aws_session_token", in: section) ?? file.value("aws_security_token", in: section)
    return AWSCredentials(
      accessKeyID: id, secretAccessKey: secret,
      sessionToken: token.flatMap { $0.isEmpty ? nil : $0 })
  }
}

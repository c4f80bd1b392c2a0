import Testing

@testable import HaulCore
@testable import HaulS3

@Suite("AWS credentials and region, found where the AWS CLI finds them")
struct AWSConfigurationTests {
  let credentialsFile = """
    # comment
    [default]
    aws_access_key_id = AKIDDEFAULT
    aws_secret_access_key = secret/default+key
    ; another comment
    [work]
    AWS_ACCESS_KEY_ID=AKIDWORK
    aws_secret_access_key: secret-work
    aws_session_token = token-work
    [half]
    aws_access_key_id = AKIDHALF
    """
  let configFile = """
    [default]
    region = eu-central-1
    [profile work]
    region = ap-south-1
    s3 =
      addressing_style = path
      max_concurrent_requests = 20
    [profile "with space"]
    aws_access_key_id = AKIDSPACE
    aws_secret_access_key = secret-space
    [sso-session corp]
    region = nowhere-1
    """

  /// Resolves with `environment` (HOME is `/home/u`) and the two files above at their
  /// default paths, unless `files` replaces them.
  func resolve(
    _ environment: [String: String], region: String? = nil, files: [String: String]? = nil
  ) throws(TransferError) -> AWSConfiguration {
    let files =
      files ?? [
        "/home/u/.aws/credentials": credentialsFile, "/home/u/.aws/config": configFile,
      ]
    return try AWSConfiguration.resolve(
      environment: ["HOME": "/home/u"].merging(environment) { $1 }, region: region,
      readFile: { files[$0] })
  }

  @Test func environment_keys_come_first() throws {
    let settings = try resolve([
      "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secret-env",
      "AWS_SESSION_TOKEN": "token-env", "AWS_PROFILE": "work",
    ])
    #expect(
      settings.credentials
        == AWSCredentials(
          accessKeyID: "AKIDENV", secretAccessKey: "secret-env", sessionToken: "token-env"))
    #expect(settings.region == "ap-south-1", "the profile still gives the region")
  }

  @Test func the_default_profile_comes_from_the_credentials_file() throws {
    let settings = try resolve([:])
    #expect(
      settings.credentials
        == AWSCredentials(accessKeyID: "AKIDDEFAULT", secretAccessKey: "secret/default+key"))
    #expect(settings.region == "eu-central-1")
    #expect(settings.addressing == nil)
  }

  @Test func aws_profile_picks_a_section_with_its_token_region_and_addressing() throws {
    let settings = try resolve(["AWS_PROFILE": "work"])
    #expect(
      settings.credentials
        == AWSCredentials(
          accessKeyID: "AKIDWORK", secretAccessKey: "secret-work", sessionToken: "token-work"))
    #expect(settings.region == "ap-south-1")
    #expect(settings.addressing == .path)
    #expect(settings.profile == "work")
  }

  @Test func keys_may_live_in_the_config_file_under_a_quoted_profile_name() throws {
    let settings = try resolve(["AWS_DEFAULT_PROFILE": "with space"])
    #expect(settings.credentials.accessKeyID == "AKIDSPACE")
    #expect(settings.region == AWSConfiguration.defaultRegion)
  }

  @Test func region_option_then_aws_region_then_aws_default_region_then_the_profile() throws {
    #expect(
      try resolve(["AWS_REGION": "r1", "AWS_DEFAULT_REGION": "r2"], region: "r0").region == "r0")
    #expect(try resolve(["AWS_REGION": "r1", "AWS_DEFAULT_REGION": "r2"]).region == "r1")
    #expect(try resolve(["AWS_DEFAULT_REGION": "r2"]).region == "r2")
    #expect(try resolve(["AWS_REGION": ""]).region == "eu-central-1", "empty is unset")
  }

  @Test func file_locations_follow_their_variables() throws {
    let settings = try resolve(
      ["AWS_SHARED_CREDENTIALS_FILE": "/etc/c", "AWS_CONFIG_FILE": "~/cfg"],
      files: [
        "/etc/c": "[default]\naws_access_key_id=AKIDMOVED\naws_secret_access_key=s\n",
        "/home/u/cfg": "[default]\nregion=sa-east-1\n",
      ])
    #expect(settings.credentials.accessKeyID == "AKIDMOVED")
    #expect(settings.region == "sa-east-1")
  }

  @Test func a_named_profile_that_is_nowhere_fails_with_auth() {
    do {
      _ = try resolve(["AWS_PROFILE": "missing"])
      Issue.record("a missing profile resolved")
    } catch {
      #expect(error.code == .auth)
      #expect(error.message.contains("\"missing\""))
    }
  }

  @Test func half_a_key_fails_with_auth_and_names_no_secret() {
    for environment in [
      ["AWS_ACCESS_KEY_ID": "AKIDENV"], ["AWS_SECRET_ACCESS_KEY": "only-secret"],
      ["AWS_PROFILE": "half"],
    ] {
      do {
        _ = try resolve(environment)
        Issue.record("\(environment) resolved")
      } catch {
        #expect(error.code == .auth)
        #expect(!error.message.contains("only-secret"))
      }
    }
  }

  @Test func no_credentials_anywhere_fails_with_auth() {
    do {
      _ = try resolve([:], files: [:])
      Issue.record("resolved without credentials")
    } catch {
      #expect(error.code == .auth)
    }
  }

  @Test func config_file_parsing_follows_configparser() {
    let file = AWSConfigFile(
      parsing: """
        key = before any section
        [ spaced ]
        Name = value # not a comment
        url: http://h:1/x=y
        empty =
        multi = first
          second
        [spaced]
        later = wins
        [profile  dup]
        region = a
        [profile dup]
        region = b
        """)
    #expect(file.value("name", in: "spaced") == "value # not a comment")
    #expect(file.value("url", in: "spaced") == "http://h:1/x=y")
    #expect(file.value("empty", in: "spaced") == "")
    #expect(file.value("multi", in: "spaced") == "first\nsecond")
    #expect(file.value("later", in: "spaced") == "wins")
    #expect(file.sections.count == 3)
    #expect(file.configProfileSection("dup") == "profile dup")
    #expect(file.configProfileSection("default") == nil)
  }
}

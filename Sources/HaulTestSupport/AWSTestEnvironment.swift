/// The environment of a haul child process that signs for a test's S3 server: these keys, the
/// region `us-east-1`, `HOME` at `home`, and every other AWS variable empty, so that nothing
/// is read from the user's own AWS files or profiles.
public func awsTestEnvironment(accessKeyID: String, secretAccessKey: String, home: String)
  -> [String: String]
{
  [
    "AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secretAccessKey,
    "AWS_REGION": "us-east-1", "HOME": home, "AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "",
    "AWS_SESSION_TOKEN": "", "AWS_CONFIG_FILE": "", "AWS_SHARED_CREDENTIALS_FILE": "",
  ]
}

#!/usr/bin/env python3
"""Prepares a moto S3 server for haul's S3 tests, then turns its signature checking on.

usage: moto_setup.py [--open] PORT BUCKET... [< OBJECTS]

Creates an IAM user allowed s3:* with an access key, creates each BUCKET, puts the objects
OBJECTS names (one JSON array [BUCKET, KEY] per line; each body is the key's UTF-8 bytes and a
line feed, so a test tells every downloaded file by its content; botocore sends a key as it
is, `..` segments included, which haul itself refuses to send), and resets moto's
authentication so that every later request must be signed with that key (moto checks the
SigV4 signature against the key's secret). With --open, signature checking stays off: moto
checks a signature over the query as it decoded it, so it refuses even botocore's own
ListObjectsV2 of a prefix with a `/` (prefix=dir%2F). Prints {"access_key", "secret_key"} as
JSON.
"""

import json
import sys
import urllib.request

import botocore.session
from botocore.config import Config


def main():
    arguments = sys.argv[1:]
    checks_signatures = arguments[:1] != ["--open"]
    if not checks_signatures:
        arguments = arguments[1:]
    port, buckets = arguments[0], arguments[1:]
    endpoint = f"http://127.0.0.1:{port}"
    session = botocore.session.get_session()
    options = dict(
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="setup",
        aws_secret_access_key="setup",
        config=Config(s3={"addressing_style": "path"}),
    )
    iam = session.create_client("iam", **options)
    s3 = session.create_client("s3", **options)
    iam.create_user(UserName="haul")
    policy = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}],
    }
    iam.put_user_policy(UserName="haul", PolicyName="s3", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName="haul")["AccessKey"]
    for bucket in buckets:
        s3.create_bucket(Bucket=bucket)
    for line in sys.stdin:
        if line.strip():
            bucket, name = json.loads(line)
            s3.put_object(Bucket=bucket, Key=name, Body=(name + "\n").encode())
    if not checks_signatures:
        print(json.dumps({"access_key": key["AccessKeyId"], "secret_key": key["SecretAccessKey"]}))
        return
    reset = urllib.request.Request(
        endpoint + "/moto-api/reset-auth",
        data=b"0",
        method="POST",
        headers={"Content-Type": "text/plain"},
    )
    urllib.request.urlopen(reset).read()
    print(json.dumps({"access_key": key["AccessKeyId"], "secret_key": key["SecretAccessKey"]}))


if __name__ == "__main__":
    main()

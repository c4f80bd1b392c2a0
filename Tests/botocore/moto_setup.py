#!/usr/bin/env python3
"""Prepares a moto S3 server for haul's S3 tests, then turns its signature checking on.

usage: moto_setup.py PORT BUCKET...

Creates an IAM user allowed s3:* with an access key, creates each BUCKET, and resets moto's
authentication so that every later request must be signed with that key (moto checks the
SigV4 signature against the key's secret). Prints {"access_key", "secret_key"} as JSON.
"""

import json
import sys
import urllib.request

import botocore.session
from botocore.config import Config


def main():
    port, buckets = sys.argv[1], sys.argv[2:]
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
